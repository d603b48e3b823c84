// The Rules view's data (rules.list) for one API (absent: the companion's
// primary one), kept current: re-read when a grant or a policy changes (a
// grant's use included), and when calls reach the audit (hit counts) — at
// most once a second, however busy the scripts are.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { RulesView } from '../../../../contract/rules.ts';
import { ControlError } from '../../../../contract/controlApi.ts';
import { useControl } from '../../api/ControlProvider.tsx';
import { useControlEvents } from '../../api/hooks.ts';

const AT_MOST_EVERY_MS = 1000;

export function useRules(profile?: string): { data: RulesView | undefined; error: ControlError | undefined; reload(): void } {
  const { api } = useControl();
  const [data, setData] = useState<RulesView>();
  const [error, setError] = useState<ControlError>();
  const generation = useRef(0);
  const last = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const load = useCallback(() => {
    const mine = ++generation.current;
    last.current = Date.now();
    api.call('rules.list', profile ? { profile } : {}).then(
      (view) => {
        if (mine !== generation.current) return;
        setData(view);
        setError(undefined);
      },
      (e: unknown) => mine === generation.current && setError(e instanceof ControlError ? e : new ControlError('internal', String(e))),
    );
  }, [api, profile]);
  useEffect(() => {
    load();
    return () => {
      clearTimeout(timer.current);
      timer.current = undefined;
    };
  }, [load]);
  useControlEvents((events) => {
    const relevant = events.some(
      (e) => e.type === 'grants-changed' || e.type === 'rules-changed' || e.type === 'dropped' || (e.type === 'audit' && e.record.kind === 'api'),
    );
    if (!relevant || timer.current) return;
    const wait = Math.max(0, last.current + AT_MOST_EVERY_MS - Date.now());
    timer.current = setTimeout(() => {
      timer.current = undefined;
      load();
    }, wait);
  });
  return { data, error, reload: load };
}
