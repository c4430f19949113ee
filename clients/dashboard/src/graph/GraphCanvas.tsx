import { useEffect, useRef } from 'react';
import Sigma from 'sigma';
import type { EdgeAttributes, KgGraph, NodeAttributes } from './model';

declare global {
  interface Window {
    /** Render figures read by the browser benchmark (tests/graph-bench.spec.ts). */
    __kgGraphStats?: { mountedAt: number; firstRenderMs: number | null; renders: number; nodes: number; edges: number };
  }
}

/** The WebGL view of a graphology graph (sigma.js); clicks select nodes. */
export function GraphCanvas({
  graph,
  version,
  selected,
  onSelect,
}: {
  graph: KgGraph;
  version: number;
  selected: string | null;
  onSelect: (id: string) => void;
}) {
  const container = useRef<HTMLDivElement>(null);
  const sigma = useRef<Sigma<NodeAttributes, EdgeAttributes> | null>(null);
  const selectRef = useRef(onSelect);
  selectRef.current = onSelect;
  const selectedRef = useRef(selected);
  selectedRef.current = selected;

  useEffect(() => {
    const mountedAt = performance.now();
    const stats = {
      mountedAt,
      firstRenderMs: null as number | null,
      renders: 0,
      nodes: graph.order,
      edges: graph.size,
    };
    window.__kgGraphStats = stats;
    const renderer = new Sigma(graph, container.current!, {
      renderEdgeLabels: false,
      labelRenderedSizeThreshold: 8,
      defaultEdgeType: 'line',
      zIndex: true,
      nodeReducer: (node, data) =>
        node === selectedRef.current ? { ...data, highlighted: true, zIndex: 1, forceLabel: true } : data,
    });
    renderer.on('afterRender', () => {
      stats.renders += 1;
      stats.nodes = graph.order;
      stats.edges = graph.size;
      if (stats.firstRenderMs === null && graph.order > 0) stats.firstRenderMs = performance.now() - mountedAt;
    });
    renderer.on('clickNode', ({ node }) => selectRef.current(node));
    renderer.on('enterNode', () => container.current?.classList.add('pointer'));
    renderer.on('leaveNode', () => container.current?.classList.remove('pointer'));
    sigma.current = renderer;
    return () => {
      renderer.kill();
      sigma.current = null;
    };
  }, [graph]);

  useEffect(() => {
    sigma.current?.refresh();
  }, [version, selected]);

  return (
    <div
      ref={container}
      className="sigma"
      role="img"
      aria-label={`Graph of ${graph.order} nodes and ${graph.size} links; use the node list in the side panel to move with the keyboard`}
    />
  );
}
