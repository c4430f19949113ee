ALTER TABLE "search"."documents" ADD COLUMN "embed_failures" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "search"."documents" ADD COLUMN "embed_failed_model" text;--> statement-breakpoint
ALTER TABLE "search"."documents" ADD COLUMN "embed_retry_at" timestamp with time zone;