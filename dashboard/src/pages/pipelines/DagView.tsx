// A pipeline's DAG drawn as SVG: stages in columns by dependency depth, edges as curves, each node a
// focusable button named by its visible text (Enter or Space selects it) coloured by its live status when a run is shown.
import { useMemo, type KeyboardEvent } from 'react';
import { layoutDag, NODE_HEIGHT, NODE_WIDTH } from './dag-layout';
import type { StageDefinition } from './types';

const MAX_NAME_CHARS = 22;

function shorten(text: string): string {
  return text.length > MAX_NAME_CHARS ? `${text.slice(0, MAX_NAME_CHARS - 1)}…` : text;
}

export function DagView({
  stages,
  statuses,
  selected,
  onSelect,
  label,
}: {
  stages: StageDefinition[];
  /** Live status by stage name (a run's stages); absent for a definition. */
  statuses?: Record<string, string>;
  selected?: string | null;
  onSelect?: (name: string) => void;
  label: string;
}) {
  const layout = useMemo(() => layoutDag(stages), [stages]);
  const types = new Map(stages.map((stage) => [stage.name, stage.type]));
  const choose = (name: string) => onSelect?.(name);
  const onKey = (event: KeyboardEvent, name: string) => {
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      choose(name);
    }
  };
  return (
    <div className="dag-scroll">
      <svg className="dag" width={layout.width} height={layout.height} viewBox={`0 0 ${layout.width} ${layout.height}`} role="group" aria-label={label} data-testid="dag">
        <defs>
          <marker id="dag-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
            <path d="M0,0 L10,5 L0,10 z" className="dag-arrowhead" />
          </marker>
        </defs>
        {layout.edges.map((edge) => (
          <path key={`${edge.from}->${edge.to}`} d={edge.path} className="dag-edge" markerEnd="url(#dag-arrow)" data-edge={`${edge.from}->${edge.to}`} />
        ))}
        {layout.nodes.map((node) => {
          const status = statuses?.[node.name];
          const type = types.get(node.name) ?? '';
          const isSelected = selected === node.name;
          return (
            <g
              key={node.name}
              className={`dag-node${status ? ` dag-status-${status}` : ''}${isSelected ? ' dag-selected' : ''}`}
              transform={`translate(${node.x},${node.y})`}
              role="button"
              tabIndex={0}
              aria-pressed={isSelected}
              data-stage={node.name}
              onClick={() => choose(node.name)}
              onKeyDown={(event) => onKey(event, node.name)}
            >
              <rect width={NODE_WIDTH} height={NODE_HEIGHT} rx={8} />
              <text x={12} y={22} className="dag-name">
                {shorten(node.name)}
              </text>
              <text x={12} y={42} className="dag-type">
                {type}
                {status ? ` · ${status.replace('_', ' ')}` : ''}
              </text>
            </g>
          );
        })}
      </svg>
    </div>
  );
}
