CREATE SCHEMA "para";
--> statement-breakpoint
CREATE TABLE "para"."items" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"category" text NOT NULL,
	"label" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"slug" text NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone,
	"archived_at" timestamp with time zone
);
--> statement-breakpoint
CREATE UNIQUE INDEX "items_tenant_category_slug_idx" ON "para"."items" USING btree ("tenant_id","category","slug");--> statement-breakpoint
CREATE INDEX "items_tenant_status_idx" ON "para"."items" USING btree ("tenant_id","status");