ALTER TABLE "search"."documents" ADD COLUMN "para_item_ids" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "search"."documents" ADD COLUMN "embedded_version" bigint;--> statement-breakpoint
ALTER TABLE "search"."documents" ADD COLUMN "embedded_model" text;--> statement-breakpoint
CREATE INDEX "documents_embed_pending_idx" ON "search"."documents" USING btree ("indexed_at") WHERE "search"."documents"."embedded_version" is distinct from "search"."documents"."version";