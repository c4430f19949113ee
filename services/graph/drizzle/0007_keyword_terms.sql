CREATE TABLE "graph"."keyword_corpus" (
	"tenant_id" text PRIMARY KEY NOT NULL,
	"nodes" integer NOT NULL,
	"length_sum" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "graph"."keyword_terms" (
	"tenant_id" text NOT NULL,
	"lexeme" text NOT NULL,
	"nodes" integer NOT NULL,
	CONSTRAINT "keyword_terms_tenant_id_lexeme_pk" PRIMARY KEY("tenant_id","lexeme")
);
--> statement-breakpoint
-- Keyword search's statistics (store/keyword.ts) are kept by statement-level triggers on
-- graph.nodes, in the writing transaction: every path that writes nodes keeps them, a bulk
-- statement costs one upsert per distinct lexeme, and graph writes already serialize per
-- tenant (lockTenantWrites), so a tenant's rows are never contended by two writers.
-- Writes wait while this migration counts what is there, so nothing is missed or counted twice.
LOCK TABLE "graph"."nodes" IN SHARE MODE;
--> statement-breakpoint
CREATE FUNCTION "graph"."keyword_stats_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO graph.keyword_terms AS t (tenant_id, lexeme, nodes)
    SELECT n.tenant_id, l.lexeme, count(*)::int
    FROM new_rows n CROSS JOIN LATERAL unnest(tsvector_to_array(n.search)) AS l(lexeme)
    GROUP BY 1, 2 ORDER BY 1, 2
  ON CONFLICT (tenant_id, lexeme) DO UPDATE SET nodes = t.nodes + excluded.nodes;
  INSERT INTO graph.keyword_corpus AS c (tenant_id, nodes, length_sum)
    SELECT n.tenant_id, count(*)::int, sum(length(n.search)) FROM new_rows n GROUP BY 1 ORDER BY 1
  ON CONFLICT (tenant_id) DO UPDATE SET nodes = c.nodes + excluded.nodes, length_sum = c.length_sum + excluded.length_sum;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "graph"."keyword_stats_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  tenants text[];
  lexemes text[];
  counts int[];
BEGIN
  SELECT coalesce(array_agg(d.tenant_id ORDER BY d.tenant_id, d.lexeme), '{}'),
         coalesce(array_agg(d.lexeme ORDER BY d.tenant_id, d.lexeme), '{}'),
         coalesce(array_agg(d.n ORDER BY d.tenant_id, d.lexeme), '{}')
  INTO tenants, lexemes, counts
  FROM (SELECT o.tenant_id, l.lexeme, count(*)::int AS n
        FROM old_rows o CROSS JOIN LATERAL unnest(tsvector_to_array(o.search)) AS l(lexeme)
        GROUP BY 1, 2) d;
  UPDATE graph.keyword_terms t SET nodes = t.nodes - d.n
  FROM unnest(tenants, lexemes, counts) AS d(tenant_id, lexeme, n)
  WHERE t.tenant_id = d.tenant_id AND t.lexeme = d.lexeme;
  DELETE FROM graph.keyword_terms t USING unnest(tenants, lexemes) AS d(tenant_id, lexeme)
  WHERE t.tenant_id = d.tenant_id AND t.lexeme = d.lexeme AND t.nodes <= 0;
  UPDATE graph.keyword_corpus c SET nodes = c.nodes - d.n, length_sum = c.length_sum - d.len
  FROM (SELECT o.tenant_id, count(*)::int AS n, sum(length(o.search)) AS len FROM old_rows o GROUP BY 1) d
  WHERE c.tenant_id = d.tenant_id;
  DELETE FROM graph.keyword_corpus c WHERE c.tenant_id IN (SELECT o.tenant_id FROM old_rows o) AND c.nodes <= 0;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "graph"."keyword_stats_updated"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  tenants text[];
  lexemes text[];
  counts int[];
BEGIN
  -- Only rows whose vector changed (most updates are of links' counts, status or PARA items).
  SELECT coalesce(array_agg(d.tenant_id ORDER BY d.tenant_id, d.lexeme), '{}'),
         coalesce(array_agg(d.lexeme ORDER BY d.tenant_id, d.lexeme), '{}'),
         coalesce(array_agg(d.n ORDER BY d.tenant_id, d.lexeme), '{}')
  INTO tenants, lexemes, counts
  FROM (SELECT x.tenant_id, x.lexeme, sum(x.n)::int AS n FROM (
          SELECT n.tenant_id, l.lexeme, 1 AS n
          FROM new_rows n JOIN old_rows o ON o.id = n.id AND o.search IS DISTINCT FROM n.search
          CROSS JOIN LATERAL unnest(tsvector_to_array(n.search)) AS l(lexeme)
          UNION ALL
          SELECT o.tenant_id, l.lexeme, -1
          FROM new_rows n JOIN old_rows o ON o.id = n.id AND o.search IS DISTINCT FROM n.search
          CROSS JOIN LATERAL unnest(tsvector_to_array(o.search)) AS l(lexeme)
        ) x GROUP BY 1, 2 HAVING sum(x.n) <> 0) d;
  IF cardinality(lexemes) = 0 THEN RETURN NULL; END IF;
  INSERT INTO graph.keyword_terms AS t (tenant_id, lexeme, nodes)
    SELECT d.tenant_id, d.lexeme, d.n FROM unnest(tenants, lexemes, counts) AS d(tenant_id, lexeme, n)
  ON CONFLICT (tenant_id, lexeme) DO UPDATE SET nodes = t.nodes + excluded.nodes;
  DELETE FROM graph.keyword_terms t USING unnest(tenants, lexemes, counts) AS d(tenant_id, lexeme, n)
  WHERE d.n < 0 AND t.tenant_id = d.tenant_id AND t.lexeme = d.lexeme AND t.nodes <= 0;
  UPDATE graph.keyword_corpus c SET length_sum = c.length_sum + d.len
  FROM (SELECT n.tenant_id, sum(length(n.search) - length(o.search)) AS len
        FROM new_rows n JOIN old_rows o ON o.id = n.id AND o.search IS DISTINCT FROM n.search GROUP BY 1) d
  WHERE c.tenant_id = d.tenant_id;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "nodes_keyword_stats_inserted" AFTER INSERT ON "graph"."nodes"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "graph"."keyword_stats_inserted"();
--> statement-breakpoint
CREATE TRIGGER "nodes_keyword_stats_deleted" AFTER DELETE ON "graph"."nodes"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "graph"."keyword_stats_deleted"();
--> statement-breakpoint
CREATE TRIGGER "nodes_keyword_stats_updated" AFTER UPDATE ON "graph"."nodes"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "graph"."keyword_stats_updated"();
--> statement-breakpoint
INSERT INTO "graph"."keyword_terms" ("tenant_id", "lexeme", "nodes")
  SELECT n.tenant_id, l.lexeme, count(*)::int
  FROM "graph"."nodes" n CROSS JOIN LATERAL unnest(tsvector_to_array(n.search)) AS l(lexeme)
  GROUP BY 1, 2;
--> statement-breakpoint
INSERT INTO "graph"."keyword_corpus" ("tenant_id", "nodes", "length_sum")
  SELECT n.tenant_id, count(*)::int, sum(length(n.search)) FROM "graph"."nodes" n GROUP BY 1;
