import { sql } from 'drizzle-orm';
import {
  bigint,
  customType,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgSchema,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { createdAt, outboxTable, tenantIdColumn, updatedAt } from '@kg/db';

export const graph = pgSchema('graph');

const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });

/** A node's full-text vector: title weighs most (A), then tags and summary (B), then the body (C). */
const SEARCH_VECTOR = `setweight(to_tsvector('english', coalesce(title, '')), 'A') || setweight(to_tsvector('english', coalesce(tags_text, '')), 'B') || setweight(to_tsvector('english', coalesce(summary, '')), 'B') || setweight(to_tsvector('english', coalesce(body_markdown, '')), 'C')`;

export const nodes = graph.table(
  'nodes',
  {
    id: text().primaryKey(),
    tenantId: tenantIdColumn(),
    title: text().notNull(),
    summary: text().notNull().default(''),
    bodyMarkdown: text().notNull().default(''),
    tags: text()
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    /** Tags joined by spaces: array_to_string is not immutable, so the store writes this. */
    tagsText: text().notNull().default(''),
    /**
     * The ids of the node's *active* PARA assignments, in assignment order: a copy of
     * `node_para_items` rows in state `active`, kept in the same transaction, so the list
     * filters (`para_item_id`, `orphan`), the graph views and events read one column.
     */
    paraItemIds: text()
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    status: text({ enum: ['raw', 'validated', 'dismissed'] })
      .notNull()
      .default('raw'),
    /** Distinct neighbours, maintained on every link change. */
    connectionCount: integer().notNull().default(0),
    /** The capture the node was made from (ingest worker); null for a hand-made node. Kept when the capture goes. */
    sourceCaptureId: text(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    search: tsvector().generatedAlwaysAs(sql.raw(SEARCH_VECTOR)),
    /**
     * The search vector's length (distinct lexemes): BM25's document length. A generated column
     * cannot read another, so it repeats the vector's expression.
     */
    searchLength: integer().generatedAlwaysAs(sql.raw(`length(${SEARCH_VECTOR})`)),
  },
  (t) => [
    index('nodes_tenant_created_idx').on(t.tenantId, t.createdAt.desc(), t.id.desc()),
    index('nodes_tenant_status_idx').on(t.tenantId, t.status),
    index('nodes_tenant_connections_idx').on(t.tenantId, t.connectionCount.desc(), t.id),
    index('nodes_para_item_ids_idx').using('gin', t.paraItemIds),
    index('nodes_search_idx').using('gin', t.search),
    index('nodes_tenant_search_length_idx').on(t.tenantId, t.searchLength),
    index('nodes_tenant_source_capture_idx').on(t.tenantId, t.sourceCaptureId),
    index('nodes_tenant_raw_updated_idx')
      .on(t.tenantId, t.updatedAt)
      .where(sql`status = 'raw'`),
  ],
);

/**
 * Every node↔PARA-item association, active or archived with its item, with who made it.
 * Owned by the graph service: see domain/assignments.ts.
 */
export const nodeParaItems = graph.table(
  'node_para_items',
  {
    tenantId: tenantIdColumn(),
    nodeId: text()
      .notNull()
      .references(() => nodes.id, { onDelete: 'cascade' }),
    paraItemId: text().notNull(),
    /** Order of the node's assignments (the order of `para_item_ids`). */
    position: integer().notNull(),
    /** `archived`: archived by its item's archive; unarchive restores exactly these. */
    state: text({ enum: ['active', 'archived'] })
      .notNull()
      .default('active'),
    /** `user`, or `system:reclassify` / `system:import` for an automatic assignment. */
    assignedBy: text().notNull(),
    score: doublePrecision(),
    assignedAt: createdAt(),
    archivedAt: timestamp({ withTimezone: true, mode: 'date' }),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.nodeId, t.paraItemId] }),
    index('node_para_items_tenant_item_state_idx').on(t.tenantId, t.paraItemId, t.state),
  ],
);

/**
 * The last archive/restore command applied to each PARA item's associations: its
 * `status_version` (the PARA item's counter, bumped with every archive and unarchive).
 * A command with a version not above it is late or repeated and changes nothing, so the
 * links end in the state of the item's latest status whatever order the commands arrive in.
 */
export const paraItemVersions = graph.table(
  'para_item_versions',
  {
    tenantId: tenantIdColumn(),
    paraItemId: text().notNull(),
    statusVersion: integer().notNull(),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.paraItemId] })],
);

/**
 * Machine-made proposals for a capture's node: a link to a similar node or a PARA item,
 * pending until a person accepts or dismisses it (domain/proposals.ts). One row per node,
 * kind and target, so a reingest replaces pending ones and never repeats a decided one.
 */
export const proposals = graph.table(
  'proposals',
  {
    id: text().primaryKey(),
    tenantId: tenantIdColumn(),
    nodeId: text()
      .notNull()
      .references(() => nodes.id, { onDelete: 'cascade' }),
    captureId: text().notNull(),
    kind: text({ enum: ['link', 'para_item'] }).notNull(),
    targetId: text().notNull(),
    targetTitle: text().notNull(),
    score: doublePrecision().notNull(),
    model: text().notNull(),
    reason: text().notNull(),
    status: text({ enum: ['pending', 'accepted', 'dismissed'] })
      .notNull()
      .default('pending'),
    createdAt: createdAt(),
    decidedAt: timestamp({ withTimezone: true, mode: 'date' }),
  },
  (t) => [
    uniqueIndex('proposals_tenant_node_kind_target_idx').on(t.tenantId, t.nodeId, t.kind, t.targetId),
    index('proposals_tenant_node_status_idx').on(t.tenantId, t.nodeId, t.status),
  ],
);

/** Each bidirectional link is stored as two rows, A→B and B→A, with the same type and weight. */
export const links = graph.table(
  'links',
  {
    tenantId: tenantIdColumn(),
    sourceId: text().notNull(),
    targetId: text().notNull(),
    type: text().notNull(),
    weight: doublePrecision().notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.sourceId, t.targetId] }),
    index('links_tenant_target_source_idx').on(t.tenantId, t.targetId, t.sourceId),
    index('links_tenant_source_weight_idx').on(t.tenantId, t.sourceId, t.weight.desc(), t.targetId),
    index('links_tenant_target_weight_idx').on(t.tenantId, t.targetId, t.weight.desc(), t.sourceId),
  ],
);

/**
 * Per-tenant counters behind GET /graph-health, maintained in the same transaction as
 * every write, so reading them never scans the tenant's graph.
 */
export const tenantStats = graph.table('tenant_stats', {
  tenantId: text().primaryKey(),
  totalNodes: integer().notNull().default(0),
  validatedNodes: integer().notNull().default(0),
  /** Bidirectional links, each counted once. */
  totalLinks: integer().notNull().default(0),
  /** Incremented (under this row's lock) by every write: orders the tenant's change log. */
  version: bigint({ mode: 'number' }).notNull().default(0),
});

/**
 * Keyword search's statistics per tenant, kept by statement triggers on graph.nodes in the
 * same transaction as every write (migration 0007_keyword_terms), so BM25 reads them instead of
 * counting: each lexeme's document frequency (nodes whose search vector holds it; rows at 0 are
 * removed) ...
 */
export const keywordTerms = graph.table(
  'keyword_terms',
  {
    tenantId: text().notNull(),
    lexeme: text().notNull(),
    nodes: integer().notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.lexeme] })],
);

/** ... and the tenant's node count and summed vector lengths (BM25's N and average length). */
export const keywordCorpus = graph.table('keyword_corpus', {
  tenantId: text().primaryKey(),
  nodes: integer().notNull(),
  lengthSum: bigint({ mode: 'number' }).notNull(),
});

/**
 * The tenant's change log, one row per write, in version order. Graph-view caches in
 * every replica catch up from it instead of reloading the whole graph.
 */
export const changes = graph.table(
  'changes',
  {
    tenantId: text().notNull(),
    version: bigint({ mode: 'number' }).notNull(),
    payload: jsonb().notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.version] })],
);

export const outbox = outboxTable(graph);
