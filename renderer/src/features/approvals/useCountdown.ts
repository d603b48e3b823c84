// Seconds left before a pending approval times out, counted from what the
// core said when it arrived (so a browser clock that is off does not matter).
// Whole seconds, as shown: the screen is drawn again once a second, not at
// every check of the clock.
import { useEffect, useState } from 'react';

export function useCountdown(secondsLeftAtArrival: number, arrivedAt: number): number {
  const [left, setLeft] = useState(() => wholeSecondsLeft(secondsLeftAtArrival, arrivedAt));
  useEffect(() => {
    // Checked four times a second so the shown second turns on time; an unchanged value draws nothing.
    const timer = setInterval(() => setLeft(wholeSecondsLeft(secondsLeftAtArrival, arrivedAt)), 250);
    return () => clearInterval(timer);
  }, [secondsLeftAtArrival, arrivedAt]);
  return left;
}

function wholeSecondsLeft(secondsLeftAtArrival: number, arrivedAt: number): number {
  return Math.max(0, Math.ceil(secondsLeftAtArrival - (performance.now() - arrivedAt) / 1000));
}

export function formatSeconds(s: number): string {
  const whole = Math.ceil(s);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, '0')}`;
}
