// A screen's last word on what it just did: a polite status, or an alert when it failed.
import { InlineText } from './InlineText.tsx';

export interface ScreenMessage {
  kind: 'status' | 'alert';
  text: string;
}

export function Message({ message }: { message: ScreenMessage | undefined }) {
  return message ? (
    <p role={message.kind}>
      <InlineText text={message.text} />
    </p>
  ) : null;
}

/** What just failed, as an alert (nothing when nothing failed). */
export function ErrorAlert({ error }: { error: string | undefined }) {
  return error ? (
    <p role="alert" className="error">
      <InlineText text={error} />
    </p>
  ) : null;
}
