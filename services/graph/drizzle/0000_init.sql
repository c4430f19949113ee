CREATE SCHEMA "graph";
--> statement-breakpoint
CREATE TABLE "graph"."links" (
	"tenant_id" text NOT NULL,
	"source_id" text NOT NULL,
	"target_id" text NOT NULL,
	"type" text NOT NULL,
	"weight" double precision NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "links_tenant_id_source_id_target_id_pk" PRIMARY KEY("tenant_id","source_id","target_id")
);
--> statement-breakpoint
CREATE TABLE "graph"."nodes" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"title" text NOT NULL,
	"summary" text DEFAULT '' NOT NULL,
	"body_markdown" text DEFAULT '' NOT NULL,
	"tags" text[] DEFAULT '{}'::text[] NOT NULL,
	"tags_text" text DEFAULT '' NOT NULL,
	"para_item_ids" text[] DEFAULT '{}'::text[] NOT NULL,
	"status" text DEFAULT 'raw' NOT NULL,
	"connection_count" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"search" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('english', coalesce(title, '')), 'A') || setweight(to_tsvector('english', coalesce(tags_text, '')), 'B') || setweight(to_tsvector('english', coalesce(summary, '')), 'B') || setweight(to_tsvector('english', coalesce(body_markdown, '')), 'C')) STORED
);
--> statement-breakpoint
CREATE TABLE "graph"."outbox" (
	"id" text PRIMARY KEY NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "graph"."outbox_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"topic" text NOT NULL,
	"key" text NOT NULL,
	"payload" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"published_at" timestamp with time zone,
	"attempts" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX "links_tenant_target_source_idx" ON "graph"."links" USING btree ("tenant_id","target_id","source_id");--> statement-breakpoint
CREATE INDEX "links_tenant_source_weight_idx" ON "graph"."links" USING btree ("tenant_id","source_id","weight" DESC NULLS LAST,"target_id");--> statement-breakpoint
CREATE INDEX "nodes_tenant_created_idx" ON "graph"."nodes" USING btree ("tenant_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "nodes_tenant_status_idx" ON "graph"."nodes" USING btree ("tenant_id","status");--> statement-breakpoint
CREATE INDEX "nodes_tenant_connections_idx" ON "graph"."nodes" USING btree ("tenant_id","connection_count" DESC NULLS LAST,"id");--> statement-breakpoint
CREATE INDEX "nodes_para_item_ids_idx" ON "graph"."nodes" USING gin ("para_item_ids");--> statement-breakpoint
CREATE INDEX "nodes_search_idx" ON "graph"."nodes" USING gin ("search");--> statement-breakpoint
CREATE INDEX "outbox_pending_idx" ON "graph"."outbox" USING btree ("seq") WHERE "graph"."outbox"."published_at" is null;