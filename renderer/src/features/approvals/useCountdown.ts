// Seconds left before a pending approval times out, counted from what the
// core said when it arrived (so a browser clock that is off does not matter).
import { useEffect, useState } from 'react';

export function useCountdown(secondsLeftAtArrival: number, arrivedAt: number): number {
  const [now, setNow] = useState(() => performance.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(performance.now()), 250);
    return () => clearInterval(timer);
  }, []);
  return Math.max(0, secondsLeftAtArrival - (now - arrivedAt) / 1000);
}

export function formatSeconds(s: number): string {
  const whole = Math.ceil(s);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, '0')}`;
}
