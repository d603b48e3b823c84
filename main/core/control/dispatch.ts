// The one dispatcher every control transport ends in (loopback HTTP, Electron
// IPC, the web UI's client): validate the input against the contract, call
// the handler, validate the output (a handler cannot leak an undeclared
// field), and turn any failure into the contract's error envelope.
import type { z } from 'zod';
import type { ControlCaller, ControlContract, ControlMethod } from '../../../contract/control.ts';
import type { ErrorEnvelope } from '../../../contract/errors.ts';
import { OrganisationRefusal } from '../config/managedPolicy.ts';
import { AirlockError, toErrorEnvelope } from '../util/errors.ts';
import type { Logger } from '../log/logger.ts';

export type ControlHandlers = {
  [M in ControlMethod]: (
    input: z.output<ControlContract[M]['input']>,
    caller: ControlCaller,
  ) => Promise<z.input<ControlContract[M]['output']>> | z.input<ControlContract[M]['output']>;
};

export type DispatchResult = { ok: true; value: unknown } | ({ ok: false } & ErrorEnvelope);

export type DispatchControl = (method: string, input: unknown, caller: ControlCaller) => Promise<DispatchResult>;

/** Issues as one line: `field.path: message; …`. */
export function zodMessage(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length ? i.path.join('.') : 'input'}: ${i.message}`).join('; ');
}

/** The contract's schemas load with the first control call, not with every start (stdio never takes one). */
const contract = () => import('../../../contract/control.ts');

/**
 * `onRefused`: told of each request the organisation's managed policy refused (the method, who asked, why), so that
 * it is audited.
 */
export function createDispatcher(
  handlers: ControlHandlers,
  logger: Logger,
  onRefused?: (method: string, by: string, error: AirlockError) => void,
): DispatchControl {
  return async (method, input, caller) => {
    const { controlContract, isControlMethod } = await contract();
    if (!isControlMethod(method)) return { ok: false, error: { code: 'not_found', message: `unknown control method '${method}'` } };
    const spec = controlContract[method];
    const parsed = spec.input.safeParse(input ?? {});
    if (!parsed.success) return { ok: false, error: { code: 'bad_input', message: `${method}: ${zodMessage(parsed.error)}` } };
    let result: unknown;
    try {
      const handler = handlers[method] as (i: unknown, c: ControlCaller) => unknown;
      result = await handler(parsed.data, caller);
    } catch (error) {
      if (!(error instanceof AirlockError)) logger.error(`control ${method} failed: ${(error as Error)?.stack ?? String(error)}`);
      else if (onRefused && error instanceof OrganisationRefusal) onRefused(method, caller.by, error);
      return { ok: false, ...toErrorEnvelope(error) };
    }
    const output = spec.output.safeParse(result);
    if (!output.success) {
      logger.error(`control ${method}: the handler returned a value outside the contract: ${zodMessage(output.error)}`);
      return { ok: false, error: { code: 'internal', message: 'internal error: see the Airlock log' } };
    }
    return { ok: true, value: output.data };
  };
}
