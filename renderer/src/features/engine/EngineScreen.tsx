// Engine and egress: what the sandbox is and what it can reach, as the
// running companion enforces it.
import { useCall } from '../../api/hooks.ts';

export function EngineScreen() {
  const status = useCall('status', {});
  const s = status.data;
  return (
    <div className="screen">
      <h1>Engine</h1>
      {!s ? (
        <p role="status">{status.error ? status.error.message : 'Loading…'}</p>
      ) : (
        <>
          <p>
            Engine <strong>{s.engine}</strong>, egress <strong>{s.egress}</strong>.
          </p>
          {s.banner ? <p className="warning">{s.banner}</p> : null}
          <h2>What the sandbox can do</h2>
          {s.boundary.split('\n').map((line) => (
            <p key={line}>{line}</p>
          ))}
        </>
      )}
    </div>
  );
}
