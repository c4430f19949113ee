CREATE SCHEMA "captures";
--> statement-breakpoint
CREATE TABLE "captures"."activity" (
	"seq" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "captures"."activity_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"id" text NOT NULL,
	"tenant_id" text NOT NULL,
	"capture_id" text NOT NULL,
	"kind" text NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"detail" jsonb DEFAULT '{}'::jsonb NOT NULL,
	CONSTRAINT "activity_id_unique" UNIQUE("id")
);
--> statement-breakpoint
CREATE TABLE "captures"."items" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"title" text NOT NULL,
	"url" text,
	"content_type" text NOT NULL,
	"why" text,
	"selected_text" text,
	"raw_content" text,
	"source" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"restore_status" text,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"node_ids" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"error" text,
	"markdown" text,
	"blob_key" text,
	"mime_type" text,
	"filename" text,
	"size_bytes" bigint,
	"current_run_id" text,
	"queued_at" timestamp with time zone,
	"lease_until" timestamp with time zone,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "captures"."outbox" (
	"id" text PRIMARY KEY NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "captures"."outbox_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"topic" text NOT NULL,
	"key" text NOT NULL,
	"payload" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"published_at" timestamp with time zone,
	"attempts" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "captures"."runs" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"capture_id" text NOT NULL,
	"reason" text NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "captures"."stages" (
	"seq" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "captures"."stages_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"capture_id" text NOT NULL,
	"run_id" text NOT NULL,
	"name" text NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone NOT NULL,
	"model" text NOT NULL,
	"input_digest" text NOT NULL,
	"output" jsonb NOT NULL
);
--> statement-breakpoint
ALTER TABLE "captures"."activity" ADD CONSTRAINT "activity_capture_id_items_id_fk" FOREIGN KEY ("capture_id") REFERENCES "captures"."items"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "captures"."runs" ADD CONSTRAINT "runs_capture_id_items_id_fk" FOREIGN KEY ("capture_id") REFERENCES "captures"."items"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "captures"."stages" ADD CONSTRAINT "stages_capture_id_items_id_fk" FOREIGN KEY ("capture_id") REFERENCES "captures"."items"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "captures"."stages" ADD CONSTRAINT "stages_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "captures"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "activity_capture_seq_idx" ON "captures"."activity" USING btree ("capture_id","seq");--> statement-breakpoint
CREATE INDEX "items_tenant_created_idx" ON "captures"."items" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "items_tenant_status_idx" ON "captures"."items" USING btree ("tenant_id","status");--> statement-breakpoint
CREATE INDEX "items_tenant_url_idx" ON "captures"."items" USING btree ("tenant_id","url");--> statement-breakpoint
CREATE INDEX "items_waiting_idx" ON "captures"."items" USING btree ("status","lease_until","queued_at") WHERE status in ('pending', 'processing');--> statement-breakpoint
CREATE INDEX "outbox_pending_idx" ON "captures"."outbox" USING btree ("seq") WHERE "captures"."outbox"."published_at" is null;--> statement-breakpoint
CREATE INDEX "runs_capture_created_idx" ON "captures"."runs" USING btree ("capture_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "stages_run_name_idx" ON "captures"."stages" USING btree ("run_id","name");--> statement-breakpoint
CREATE INDEX "stages_capture_idx" ON "captures"."stages" USING btree ("capture_id");