// Places a pipeline's stages for drawing: one column per dependency depth (a stage sits one column right
// of its deepest dependency), stages of a column stacked in definition order, edges as cubic curves.

export interface LayoutStage {
  name: string;
  depends_on?: string[];
}

export interface NodeBox {
  name: string;
  column: number;
  row: number;
  x: number;
  y: number;
}

export interface Edge {
  from: string;
  to: string;
  path: string;
}

export interface DagLayout {
  nodes: NodeBox[];
  edges: Edge[];
  width: number;
  height: number;
}

export const NODE_WIDTH = 200;
export const NODE_HEIGHT = 56;
const COLUMN_GAP = 64;
const ROW_GAP = 20;
const MARGIN = 8;

/** Depth of each stage: 0 without dependencies, else one more than its deepest dependency (cycles and unknown names count as 0). */
export function stageDepths(stages: LayoutStage[]): Map<string, number> {
  const byName = new Map(stages.map((stage) => [stage.name, stage]));
  const depths = new Map<string, number>();
  const visiting = new Set<string>();
  const depthOf = (name: string): number => {
    const known = depths.get(name);
    if (known !== undefined) return known;
    const stage = byName.get(name);
    if (!stage || visiting.has(name)) return 0;
    visiting.add(name);
    const dependencies = (stage.depends_on ?? []).filter((dependency) => byName.has(dependency));
    const depth = dependencies.length ? 1 + Math.max(...dependencies.map(depthOf)) : 0;
    visiting.delete(name);
    depths.set(name, depth);
    return depth;
  };
  for (const stage of stages) depthOf(stage.name);
  return depths;
}

export function layoutDag(stages: LayoutStage[]): DagLayout {
  const depths = stageDepths(stages);
  const rowsUsed: number[] = [];
  const nodes: NodeBox[] = stages.map((stage) => {
    const column = depths.get(stage.name) ?? 0;
    const row = rowsUsed[column] ?? 0;
    rowsUsed[column] = row + 1;
    return { name: stage.name, column, row, x: MARGIN + column * (NODE_WIDTH + COLUMN_GAP), y: MARGIN + row * (NODE_HEIGHT + ROW_GAP) };
  });
  const byName = new Map(nodes.map((node) => [node.name, node]));
  const edges: Edge[] = [];
  for (const stage of stages) {
    const to = byName.get(stage.name)!;
    for (const dependency of stage.depends_on ?? []) {
      const from = byName.get(dependency);
      if (!from) continue;
      const startX = from.x + NODE_WIDTH;
      const startY = from.y + NODE_HEIGHT / 2;
      const endX = to.x;
      const endY = to.y + NODE_HEIGHT / 2;
      const bend = Math.max(24, (endX - startX) / 2);
      edges.push({ from: dependency, to: stage.name, path: `M${startX},${startY} C${startX + bend},${startY} ${endX - bend},${endY} ${endX},${endY}` });
    }
  }
  const columns = Math.max(1, rowsUsed.length);
  const rows = Math.max(1, ...rowsUsed.map((count) => count ?? 0));
  return {
    nodes,
    edges,
    width: MARGIN * 2 + columns * NODE_WIDTH + (columns - 1) * COLUMN_GAP,
    height: MARGIN * 2 + rows * NODE_HEIGHT + (rows - 1) * ROW_GAP,
  };
}
