CREATE TABLE "captures"."imports" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"status" text DEFAULT 'uploading' NOT NULL,
	"format" text,
	"filename" text DEFAULT '' NOT NULL,
	"size_bytes" bigint DEFAULT 0 NOT NULL,
	"parts" integer DEFAULT 0 NOT NULL,
	"para" boolean DEFAULT false NOT NULL,
	"source" text DEFAULT 'api' NOT NULL,
	"entries_done" integer DEFAULT 0 NOT NULL,
	"bytes_read" bigint DEFAULT 0 NOT NULL,
	"seen" integer DEFAULT 0 NOT NULL,
	"created" integer DEFAULT 0 NOT NULL,
	"duplicates" integer DEFAULT 0 NOT NULL,
	"skipped" integer DEFAULT 0 NOT NULL,
	"invalid" integer DEFAULT 0 NOT NULL,
	"errors" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"failure" text,
	"queued_at" timestamp with time zone,
	"lease_owner" text,
	"lease_until" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "captures"."items" ADD COLUMN "import_id" text;--> statement-breakpoint
CREATE INDEX "imports_tenant_created_idx" ON "captures"."imports" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "imports_active_idx" ON "captures"."imports" USING btree ("tenant_id","queued_at") WHERE status in ('uploading', 'queued', 'running');--> statement-breakpoint
CREATE INDEX "items_import_status_idx" ON "captures"."items" USING btree ("import_id","status") WHERE import_id is not null;