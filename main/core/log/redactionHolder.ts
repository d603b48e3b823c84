// The secrets the process currently knows (the active API key), shared by
// every place that writes text out: the logger, the audit store, the control
// API. Updated when the key is resolved or changed.
import { createRedactor, type Redactor } from './redactor.ts';

export class RedactionHolder {
  private secrets = new Set<string>();
  private current: Redactor = createRedactor([]);

  add(secret: string | undefined): void {
    if (!secret || this.secrets.has(secret)) return;
    this.secrets.add(secret);
    this.current = createRedactor([...this.secrets]);
  }

  readonly redact = (text: string): string => this.current(text);

  /** The current redactor, with `leaks` and `redactBytes`. */
  get redactor(): Redactor {
    return this.current;
  }
}
