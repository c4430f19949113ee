CREATE TABLE "graph"."node_para_items" (
	"tenant_id" text NOT NULL,
	"node_id" text NOT NULL,
	"para_item_id" text NOT NULL,
	"position" integer NOT NULL,
	"state" text DEFAULT 'active' NOT NULL,
	"assigned_by" text NOT NULL,
	"score" double precision,
	"assigned_at" timestamp with time zone DEFAULT now() NOT NULL,
	"archived_at" timestamp with time zone,
	CONSTRAINT "node_para_items_tenant_id_node_id_para_item_id_pk" PRIMARY KEY("tenant_id","node_id","para_item_id")
);
--> statement-breakpoint
ALTER TABLE "graph"."node_para_items" ADD CONSTRAINT "node_para_items_node_id_nodes_id_fk" FOREIGN KEY ("node_id") REFERENCES "graph"."nodes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "node_para_items_tenant_item_state_idx" ON "graph"."node_para_items" USING btree ("tenant_id","para_item_id","state");--> statement-breakpoint
-- Backfill: every id already in nodes.para_item_ids becomes an active assignment made by a person.
INSERT INTO "graph"."node_para_items" ("tenant_id", "node_id", "para_item_id", "position", "state", "assigned_by", "assigned_at") SELECT n."tenant_id", n."id", p."id", p."ord" - 1, 'active', 'user', n."created_at" FROM "graph"."nodes" n, unnest(n."para_item_ids") WITH ORDINALITY AS p("id", "ord") ON CONFLICT DO NOTHING;
