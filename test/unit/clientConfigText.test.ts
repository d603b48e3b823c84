// Each client's file is edited in place: one entry set or removed, every
// other byte kept, comments included; a broken file is never rewritten.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BrokenConfigError, editConfig } from '../../main/core/clients/configText.ts';

const entry = { command: '/opt/node', args: ['/opt/airlock.js', 'stdio'] };

test('JSON with other servers: ours is added, theirs and the indentation are kept; removing restores the file', () => {
  const before = '{\n    "mcpServers": {\n        "github": { "command": "gh-mcp" }\n    },\n    "theme": "dark"\n}\n';
  const added = editConfig(before, 'json', 'c.json', ['mcpServers'], 'airlock', entry);
  assert.equal(
    added,
    '{\n    "mcpServers": {\n        "github": { "command": "gh-mcp" },\n        "airlock": {\n            "command": "/opt/node",\n            "args": [\n                "/opt/airlock.js",\n                "stdio"\n            ]\n        }\n    },\n    "theme": "dark"\n}\n',
  );
  assert.equal(editConfig(added, 'json', 'c.json', ['mcpServers'], 'airlock', entry), added, 'idempotent');
  assert.equal(
    editConfig(added, 'json', 'c.json', ['mcpServers'], 'airlock', undefined),
    '{\n    "mcpServers": {\n        "github": { "command": "gh-mcp" }\n    },\n    "theme": "dark"\n}\n',
  );
});

test('JSONC (Zed, VS Code): comments, trailing commas and the other keys survive', () => {
  const before = `// Zed settings
{
  "theme": "One Dark", // my theme
  /* servers */
  "context_servers": {
    "other": { "command": "x", },
  },
}
`;
  const added = editConfig(before, 'jsonc', 'settings.json', ['context_servers'], 'airlock', entry);
  assert.equal(
    added,
    `// Zed settings
{
  "theme": "One Dark", // my theme
  /* servers */
  "context_servers": {
    "other": { "command": "x", },
    "airlock": {
      "command": "/opt/node",
      "args": [
        "/opt/airlock.js",
        "stdio"
      ]
    },
  },
}
`,
  );
});

test('a missing or empty file gets just our entry; the root map is created', () => {
  assert.equal(
    editConfig('', 'json', 'mcp.json', ['servers'], 'airlock', { type: 'stdio', ...entry }),
    '{\n  "servers": {\n    "airlock": {\n      "type": "stdio",\n      "command": "/opt/node",\n      "args": [\n        "/opt/airlock.js",\n        "stdio"\n      ]\n    }\n  }\n}\n',
  );
});

test('TOML (Codex): other tables and comments are kept byte for byte; our table replaces itself and its sub-tables', () => {
  const before = `# Codex config
model = "o4-mini"

[mcp_servers.airlock]
command = "old"

[mcp_servers.airlock.env]
X = "1"

[mcp_servers.github]
command = "gh-mcp" # keep me

[profiles.fast]
model = "o4-mini"
`;
  const added = editConfig(before, 'toml', 'config.toml', ['mcp_servers'], 'airlock', entry);
  assert.equal(
    added,
    `# Codex config
model = "o4-mini"

[mcp_servers.github]
command = "gh-mcp" # keep me

[profiles.fast]
model = "o4-mini"

[mcp_servers.airlock]
command = "/opt/node"
args = [ "/opt/airlock.js", "stdio" ]
`,
  );
  assert.equal(editConfig(added, 'toml', 'config.toml', ['mcp_servers'], 'airlock', entry), added, 'idempotent');
  const removed = editConfig(added, 'toml', 'config.toml', ['mcp_servers'], 'airlock', undefined);
  assert.equal(removed, `# Codex config\nmodel = "o4-mini"\n\n[mcp_servers.github]\ncommand = "gh-mcp" # keep me\n\n[profiles.fast]\nmodel = "o4-mini"\n\n`);
});

test('a file that does not parse is never rewritten: the error names the file, line and column', () => {
  assert.throws(
    () => editConfig('{\n  "mcpServers": {\n    "a": 1,,\n  }\n}\n', 'json', '/home/me/.cursor/mcp.json', ['mcpServers'], 'airlock', entry),
    (e: unknown) => e instanceof BrokenConfigError && e.at.line === 3 && /\.cursor\/mcp\.json does not parse \(line 3, column \d+: /.test(e.message),
  );
  assert.throws(
    () => editConfig('model = "x"\n[mcp_servers\n', 'toml', 'config.toml', ['mcp_servers'], 'airlock', entry),
    (e: unknown) => e instanceof BrokenConfigError && e.at.line === 2,
  );
  assert.throws(() => editConfig('{ "a": 1, } // c\n', 'json', 'strict.json', ['mcpServers'], 'airlock', entry), BrokenConfigError, 'strict JSON: no comments');
});
