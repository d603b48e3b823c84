// The client shapes a QuickJS worker holds: the host sends each shape (the
// tree of an API's namespaces and methods) to a worker once, and says which
// to drop; the worker keeps them between runs, each tree parsed on first use.
// The guest's client is built lazily from them: `children` gives one node's
// children as the code reaches it, and notes the operation ids it handed out
// (a method exists only for those, so any other call is refused).
import type { HostToWorker } from './protocol.ts';
import type { ShapeNode } from '../guestClient.ts';

type RunMessage = Extract<HostToWorker, { type: 'run' }>;

/** What a run's client has reached so far. */
export interface ClientReach {
  roots: RunMessage['roots'];
  /** The operation ids the code was handed (a method exists only for those): any other call is refused. */
  operationIds: Set<string>;
  /** Namespaces of the client built for the code (each one node's children handed over). */
  clientNamespaces: number;
}

export class ShapeCache {
  /** The client shapes the host sent, by key; each tree parsed on first use. */
  readonly #shapes = new Map<string, { json: string; tree?: ShapeNode }>();

  /** Drops the shapes the host says to drop and keeps those it sent with the run. */
  update(message: Pick<RunMessage, 'forget' | 'shapes'>): void {
    for (const key of message.forget) this.#shapes.delete(key);
    for (const shape of message.shapes) this.#shapes.set(shape.key, { json: shape.json });
  }

  /** A node's children as the guest builds them: name → operation id (a method, its id prefixed and remembered) or 0 (a namespace). */
  children(run: ClientReach, rootIndex: number, pathJson: string): string {
    const root = run.roots[rootIndex];
    const shape = root ? this.#shapes.get(root.key) : undefined;
    if (!root || !shape) throw new TypeError('no such client root');
    shape.tree ??= JSON.parse(shape.json) as ShapeNode;
    let node: ShapeNode | string | undefined = shape.tree;
    const path = JSON.parse(pathJson) as unknown;
    if (!Array.isArray(path)) throw new TypeError('a client path is a list of names');
    for (const name of path) {
      if (typeof node !== 'object' || typeof name !== 'string' || !Object.hasOwn(node, name)) throw new TypeError('no such client namespace');
      node = node[name];
    }
    if (typeof node !== 'object') throw new TypeError('no such client namespace');
    run.clientNamespaces++;
    const out: Record<string, string | 0> = {};
    for (const [name, child] of Object.entries(node)) {
      if (typeof child === 'string') {
        out[name] = child;
        run.operationIds.add(root.idPrefix + child);
      } else out[name] = 0;
    }
    return JSON.stringify(out);
  }
}
