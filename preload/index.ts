// The renderer's only window onto the main process. It will expose named
// methods of the typed control API contract (never a generic invoke); for now
// it exposes nothing.
export {};
