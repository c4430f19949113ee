CREATE SCHEMA "search";
--> statement-breakpoint
CREATE TABLE "search"."documents" (
	"tenant_id" text NOT NULL,
	"node_id" text NOT NULL,
	"title" text NOT NULL,
	"summary" text NOT NULL,
	"tags" text[] NOT NULL,
	"status" text NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"indexed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "documents_tenant_id_node_id_pk" PRIMARY KEY("tenant_id","node_id")
);
--> statement-breakpoint
CREATE TABLE "search"."processed_events" (
	"consumer" text NOT NULL,
	"event_id" text NOT NULL,
	"processed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "processed_events_consumer_event_id_pk" PRIMARY KEY("consumer","event_id")
);
--> statement-breakpoint
CREATE INDEX "documents_tenant_updated_idx" ON "search"."documents" USING btree ("tenant_id","updated_at");