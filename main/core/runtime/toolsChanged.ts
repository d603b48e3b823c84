// Which of the hub's events change what a session's tools describe: the APIs
// served, other MCP servers, a live setting the descriptions quote. Sessions
// of both revisions are told by it (described again; list_changed).

/** Whether a batch of the hub's events changes what the tools describe. */
export function changesTools(batch: readonly { type: string }[]): boolean {
  return batch.some((e) => e.type === 'apis-changed' || e.type === 'servers-changed' || e.type === 'settings-applied');
}
