import { describe, expect, it } from 'vitest';
import { layoutDag, stageDepths } from './dag-layout';

describe('the DAG layout of the pipeline pages', () => {
  it('puts a stage one column right of its deepest dependency', () => {
    const depths = stageDepths([{ name: 'deploy', depends_on: ['test', 'build'] }, { name: 'build' }, { name: 'test', depends_on: ['build'] }]);
    expect(Object.fromEntries(depths)).toEqual({ build: 0, test: 1, deploy: 2 });
  });

  it('stacks the stages of a column and draws one edge per dependency', () => {
    const layout = layoutDag([{ name: 'lint' }, { name: 'unit', depends_on: ['lint'] }, { name: 'types', depends_on: ['lint'] }, { name: 'package', depends_on: ['unit', 'types'] }]);
    expect(layout.nodes.map((node) => [node.name, node.column, node.row])).toEqual([
      ['lint', 0, 0],
      ['unit', 1, 0],
      ['types', 1, 1],
      ['package', 2, 0],
    ]);
    expect(layout.edges.map((edge) => `${edge.from}->${edge.to}`)).toEqual(['lint->unit', 'lint->types', 'unit->package', 'types->package']);
    const right = Math.max(...layout.nodes.map((node) => node.x));
    const bottom = Math.max(...layout.nodes.map((node) => node.y));
    expect(layout.width).toBeGreaterThan(right);
    expect(layout.height).toBeGreaterThan(bottom);
  });

  it('ignores unknown dependencies and survives a cycle (definitions being typed are drawn too)', () => {
    const layout = layoutDag([
      { name: 'a', depends_on: ['b'] },
      { name: 'b', depends_on: ['a'] },
      { name: 'c', depends_on: ['ghost'] },
    ]);
    expect(layout.nodes).toHaveLength(3);
    expect(layout.edges.map((edge) => `${edge.from}->${edge.to}`)).toEqual(['b->a', 'a->b']);
  });
});
