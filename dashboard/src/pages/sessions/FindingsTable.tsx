// The trust findings of a session in event order: which rule, how severe, the points it took, the evidence.
import type { Finding } from './types';

export function FindingsTable({ findings }: { findings: Finding[] }) {
  return (
    <>
      <h3>Trust findings</h3>
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Rule</th>
              <th scope="col">Severity</th>
              <th scope="col">Points</th>
              <th scope="col">Evidence</th>
            </tr>
          </thead>
          <tbody>
            {findings.map((finding) => (
              <tr key={`${finding.sequence}-${finding.rule}`}>
                <td className="mono">#{finding.sequence}</td>
                <td>{finding.rule}</td>
                <td>
                  <span className={`finding-mark finding-${finding.severity}`}>{finding.severity}</span>
                </td>
                <td>−{finding.penalty}</td>
                <td className="evidence">{finding.evidence}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
