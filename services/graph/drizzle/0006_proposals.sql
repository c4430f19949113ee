CREATE TABLE "graph"."proposals" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"node_id" text NOT NULL,
	"capture_id" text NOT NULL,
	"kind" text NOT NULL,
	"target_id" text NOT NULL,
	"target_title" text NOT NULL,
	"score" double precision NOT NULL,
	"model" text NOT NULL,
	"reason" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"decided_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "graph"."nodes" ADD COLUMN "source_capture_id" text;--> statement-breakpoint
ALTER TABLE "graph"."proposals" ADD CONSTRAINT "proposals_node_id_nodes_id_fk" FOREIGN KEY ("node_id") REFERENCES "graph"."nodes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "proposals_tenant_node_kind_target_idx" ON "graph"."proposals" USING btree ("tenant_id","node_id","kind","target_id");--> statement-breakpoint
CREATE INDEX "proposals_tenant_node_status_idx" ON "graph"."proposals" USING btree ("tenant_id","node_id","status");--> statement-breakpoint
CREATE INDEX "nodes_tenant_source_capture_idx" ON "graph"."nodes" USING btree ("tenant_id","source_capture_id");