ALTER TABLE "search"."documents" ADD COLUMN "version" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "search"."documents" ADD COLUMN "deleted_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "documents_deleted_at_idx" ON "search"."documents" USING btree ("deleted_at") WHERE "search"."documents"."deleted_at" is not null;--> statement-breakpoint
CREATE INDEX "processed_events_processed_at_idx" ON "search"."processed_events" USING btree ("processed_at");