CREATE TABLE "para"."jobs" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"kind" text NOT NULL,
	"para_item_id" text,
	"status" text DEFAULT 'queued' NOT NULL,
	"queued" integer DEFAULT 0 NOT NULL,
	"done" integer DEFAULT 0 NOT NULL,
	"assigned" integer DEFAULT 0 NOT NULL,
	"cursor" text,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "para"."outbox" (
	"id" text PRIMARY KEY NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "para"."outbox_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"topic" text NOT NULL,
	"key" text NOT NULL,
	"payload" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"published_at" timestamp with time zone,
	"attempts" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX "jobs_tenant_created_idx" ON "para"."jobs" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "jobs_unfinished_idx" ON "para"."jobs" USING btree ("updated_at") WHERE status in ('queued', 'running');--> statement-breakpoint
CREATE INDEX "outbox_pending_idx" ON "para"."outbox" USING btree ("seq") WHERE "para"."outbox"."published_at" is null;