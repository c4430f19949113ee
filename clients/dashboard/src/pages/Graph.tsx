import { useCallback, useEffect, useMemo, useState } from 'react';
import { api, unwrap } from '../api/client';
import { ErrorNote } from '../components/ui';
import { CATEGORY_COLORS, createGraph, markExpanded, mergeView, type KgGraph } from '../graph/model';
import { GraphCanvas } from '../graph/GraphCanvas';
import { NodePanel } from '../graph/NodePanel';
import { useAction } from '../hooks';
import { Link } from '../router';

const MAX_NODES = 2000;

/** The graph explorer: opens at the hub (GET /graph/seed), expands frontier nodes on click. */
export default function GraphPage() {
  const [depth, setDepth] = useState(2);
  const [seedInput] = useState(() => new URLSearchParams(location.search).get('seed'));
  const [graph, setGraph] = useState<KgGraph>(() => createGraph());
  const [version, setVersion] = useState(0);
  const [selected, setSelected] = useState<string | null>(null);
  const [seedId, setSeedId] = useState<string | null | undefined>(undefined);
  const { busy, error, run } = useAction();

  useEffect(() => {
    void run(async () => {
      const view = unwrap(
        await api.GET('/graph/seed', {
          params: { query: { depth, max_nodes: MAX_NODES, ...(seedInput ? { seed: seedInput } : {}) } },
        }),
      );
      const next = createGraph();
      mergeView(next, view, null);
      setGraph(next);
      setSeedId(view.seed_id);
      setSelected(view.seed_id);
    });
  }, [depth, seedInput, run]);

  const expand = useCallback(
    (id: string) =>
      run(async () => {
        const view = unwrap(
          await api.GET('/graph/seed', { params: { query: { seed: id, depth: 1, max_nodes: 200 } } }),
        );
        mergeView(graph, view, id);
        markExpanded(graph, id);
        setVersion((v) => v + 1);
      }),
    [graph, run],
  );

  const select = useCallback(
    (id: string) => {
      setSelected(id);
      if (!graph.hasNode(id) || graph.getNodeAttribute(id, 'frontier')) void expand(id);
    },
    [graph, expand],
  );

  const merge = useCallback(
    (view: Parameters<typeof mergeView>[1], around: string) => {
      if (mergeView(graph, view, around).length) setVersion((v) => v + 1);
    },
    [graph],
  );

  const frontierCount = useMemo(() => graph.filterNodes((_, a) => a.frontier).length, [graph, version]);

  return (
    <main id="main" className="graph-layout" style={{ padding: 0 }}>
      <h1 className="skip">Graph explorer</h1>
      <section className="graph-canvas" aria-label="Graph view">
        <div className="graph-toolbar row">
          <label className="inline" htmlFor="depth">
            Depth
          </label>
          <select id="depth" value={depth} onChange={(e) => setDepth(Number(e.target.value))}>
            {[1, 2, 3].map((d) => (
              <option key={d} value={d}>
                {d}
              </option>
            ))}
          </select>
          <span className="muted" aria-live="polite" data-testid="graph-count">
            {graph.order} nodes · {graph.size} links · {frontierCount} to expand{busy ? ' · loading…' : ''}
          </span>
        </div>
        {seedId !== undefined && <GraphCanvas graph={graph} version={version} selected={selected} onSelect={select} />}
        <div className="legend" aria-label="Legend">
          {Object.entries(CATEGORY_COLORS).map(([name, color]) => (
            <span key={name}>
              <span className="dot" style={{ background: color }} />
              {name === 'none' ? 'no PARA item' : name}
            </span>
          ))}
          <span className="muted"> · pale: click to expand</span>
        </div>
      </section>
      <aside className="side" aria-label="Selected node">
        <ErrorNote error={error} />
        {seedId === null && (
          <p>
            Your graph is empty. Create a node under <Link href="/nodes">Nodes</Link> or add a capture.
          </p>
        )}
        {selected ? (
          <NodePanel
            key={selected}
            id={selected}
            frontier={graph.hasNode(selected) && graph.getNodeAttribute(selected, 'frontier')}
            onExpand={() => void expand(selected)}
            onSelect={select}
            onNeighbors={(view) => merge(view, selected)}
          />
        ) : (
          seedId && <p className="muted">Select a node to see it here.</p>
        )}
      </aside>
    </main>
  );
}
