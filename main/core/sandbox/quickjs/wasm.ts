// Typed access to the WebAssembly global. The project compiles against the
// es2024 lib without the DOM, which does not declare WebAssembly; declaring
// the few members the QuickJS engine uses here keeps the global type space
// untouched for the rest of the code.

/** A compiled module: opaque, shared with worker threads by postMessage. */
export interface WasmModule {
  readonly __brand?: 'WebAssembly.Module';
}

export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(deltaPages: number): number;
}

interface WasmApi {
  compile(bytes: Uint8Array): Promise<WasmModule>;
  Memory: new (descriptor: { initial: number; maximum?: number }) => WasmMemory;
  RuntimeError: new (message?: string) => Error;
}

export const Wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
