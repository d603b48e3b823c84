// Approval in the client, on MCP 2026-07-28 (multi-round-trip requests): a
// run held for a person may also be put to the person through the client,
// where the person allowed it in settings (`approvalInClient`) and the
// client declared elicitation. The call is answered `input_required` with
// the question, and a `requestState` the client must send back with its
// answer. That state names the run and the approval, and could decide a
// mutation: it is sealed (HMAC-SHA256 by the SDK's codec, under a key made
// at each start, so it dies with the runs it names), expires with the
// approval, and is bound to the caller that was asked (its credential and
// scope): one presented by another caller is refused. Airlock's own prompt
// is asked at the same time; the first answer wins.
import { randomBytes } from 'node:crypto';
import { acceptedContent, createRequestStateCodec, inputRequired } from '@modelcontextprotocol/server';

/** What a sealed round names: the held run, the approval it waits on, the caller asked. */
export interface SealedRound {
  runId: string;
  approvalId: string;
  caller: string;
}

/** A key for this process only: no state minted before a restart is accepted after it. */
const codec = createRequestStateCodec<SealedRound>({ key: randomBytes(32), ttlSeconds: 3600 });

/** For the server's `requestState.verify`: a tampered, foreign or expired state is refused before any handler runs. */
export const verifySealedRound = (state: string, ctx: Parameters<typeof codec.verify>[1]) => codec.verify(state, ctx);

/** The approval the run waits on, as the client's person is asked it. */
export interface PendingInClient {
  approvalId: string;
  /** One sentence: who asks to do what. */
  question: string;
  expiresAt: string;
}

/** The companion's side: whether it is allowed, the question a run waits on, and the client's answer. */
export interface InClientApprovals {
  /** The person's setting (`approvalInClient`), read at each call. */
  enabled(): boolean;
  pendingFor(runId: string): PendingInClient | undefined;
  /** Decides the approval unless someone answered first (that answer stands). */
  decide(approvalId: string, allow: boolean, by: string, reason?: string): void;
}

const ANSWER = 'approval';
const answerSchema = {
  type: 'object' as const,
  properties: {
    decision: {
      type: 'string' as const,
      title: 'Your decision: allow once, or deny',
      enum: ['deny', 'allow'],
      default: 'deny',
    },
  },
  required: ['decision'],
};

/** How long is left until `iso`, as a person reads it: "1 min 40 s", "45 s" (the client's clock may differ from ours). */
function within(iso: string, now = Date.now()): string {
  const s = Math.max(0, Math.round((Date.parse(iso) - now) / 1000));
  return s >= 60 ? `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}` : `${s} s`;
}

/** The `input_required` answer for a held run: the question, and the sealed state naming it. */
export async function askInClient(pending: PendingInClient, round: SealedRound): Promise<unknown> {
  return inputRequired({
    inputRequests: {
      [ANSWER]: inputRequired.elicit({
        message: `${pending.question} Airlock asks you here too; the first answer, here or in Airlock, counts. No answer within ${within(pending.expiresAt)} denies it.`,
        requestedSchema: answerSchema,
      }),
    },
    requestState: await codec.mint(round),
  });
}

/** What the client's person answered in a retried round: allow, deny, or nothing (they dismissed it). */
export function answerOf(responses: Record<string, unknown> | undefined): 'allow' | 'deny' | undefined {
  const entry = responses?.[ANSWER] as { action?: unknown } | undefined;
  if (entry?.action === 'decline') return 'deny';
  const content = acceptedContent(responses, ANSWER) as { decision?: unknown } | undefined;
  return content?.decision === 'allow' ? 'allow' : content?.decision === 'deny' ? 'deny' : undefined;
}
