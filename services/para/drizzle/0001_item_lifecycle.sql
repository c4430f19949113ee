ALTER TABLE "para"."items" ADD COLUMN "restore_status" text;--> statement-breakpoint
ALTER TABLE "para"."items" ADD COLUMN "associations_pending" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "items_associations_pending_idx" ON "para"."items" USING btree ("updated_at") WHERE associations_pending;