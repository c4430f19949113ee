CREATE TABLE "graph"."tenant_stats" (
	"tenant_id" text PRIMARY KEY NOT NULL,
	"total_nodes" integer DEFAULT 0 NOT NULL,
	"validated_nodes" integer DEFAULT 0 NOT NULL,
	"total_links" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX "links_tenant_target_weight_idx" ON "graph"."links" USING btree ("tenant_id","target_id","weight" DESC NULLS LAST,"source_id");--> statement-breakpoint
CREATE INDEX "nodes_tenant_raw_updated_idx" ON "graph"."nodes" USING btree ("tenant_id","updated_at") WHERE status = 'raw';