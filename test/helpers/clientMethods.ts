// What a run's client offers, read from its manifest the way the sandbox
// builds it: every method as `global.path -> operation id`, global by global,
// and the globals of each root.
import type { ClientManifest } from '../../main/core/sandbox/engine.ts';
import type { ShapeNode } from '../../main/core/sandbox/guestClient.ts';

export function methods(manifest: ClientManifest): string[] {
  if (!('roots' in manifest)) throw new Error('a manifest by roots was expected');
  const out: string[] = [];
  const walk = (node: ShapeNode, path: string, prefix: string) => {
    for (const [name, child] of Object.entries(node)) {
      if (typeof child === 'string') out.push(`${path}.${name} -> ${prefix}${child}`);
      else walk(child, `${path}.${name}`, prefix);
    }
  };
  for (const root of manifest.roots) for (const global of root.globals) walk(JSON.parse(root.shape.json) as ShapeNode, global, root.idPrefix);
  return out;
}

export function globalsOf(manifest: ClientManifest): string[][] {
  return 'roots' in manifest ? manifest.roots.map((r) => r.globals) : [];
}
