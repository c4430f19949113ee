import { useEffect, useRef } from 'react';
import Sigma from 'sigma';
import type { EdgeAttributes, KgGraph, NodeAttributes } from './model';

declare global {
  interface Window {
    /** Render figures read by the browser benchmark (tests/graph-bench.spec.ts). */
    __kgGraphStats?: {
      /** ms from navigation start to the first frame with nodes (performance.now()). */
      firstRenderMs: number | null;
      /** ms sigma took to build its buffers and draw that first frame. */
      buildMs: number | null;
      renders: number;
      /** Time spent inside sigma's render calls, summed (ms). */
      renderMsTotal: number;
      /** Where a node is drawn, in CSS pixels from the canvas's top left (null: not shown). */
      positionOf: (id: string) => { x: number; y: number } | null;
      nodes: number;
      edges: number;
    };
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
      firstRenderMs: null as number | null,
      buildMs: null as number | null,
      renders: 0,
      renderMsTotal: 0,
      positionOf: (id: string) => {
        if (!graph.hasNode(id)) return null;
        const { x, y } = graph.getNodeAttributes(id);
        return renderer.graphToViewport({ x, y });
      },
      nodes: graph.order,
      edges: graph.size,
    };
    window.__kgGraphStats = stats;
    const renderer = new Sigma(graph, container.current!, {
      renderEdgeLabels: false,
      labelRenderedSizeThreshold: 8,
      // While the view moves, edges and labels wait for the end of the gesture (sigma's own
      // settings for large graphs): panning stays fluid on software WebGL too.
      hideEdgesOnMove: true,
      hideLabelsOnMove: true,
      zIndex: true,
      nodeReducer: (node, data) =>
        node === selectedRef.current ? { ...data, highlighted: true, zIndex: 1, forceLabel: true } : data,
    });
    const rendered = () => {
      stats.renders += 1;
      stats.nodes = graph.order;
      stats.edges = graph.size;
      if (stats.firstRenderMs === null && graph.order > 0) {
        stats.firstRenderMs = performance.now();
        stats.buildMs = stats.firstRenderMs - mountedAt;
      }
    };
    // The constructor draws the first frame synchronously, before any listener exists.
    rendered();
    let renderStart = 0;
    renderer.on('beforeRender', () => (renderStart = performance.now()));
    renderer.on('afterRender', () => {
      stats.renderMsTotal += performance.now() - renderStart;
      rendered();
    });
    renderer.on('clickNode', ({ node }) => selectRef.current(node));
    renderer.on('enterNode', () => container.current?.classList.add('pointer'));
    renderer.on('leaveNode', () => container.current?.classList.remove('pointer'));
    sigma.current = renderer;
    return () => {
      sigma.current = null;
      try {
        renderer.kill();
      } catch {
        // A lost WebGL context (the GPU process restarted) cannot be released again.
      }
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
