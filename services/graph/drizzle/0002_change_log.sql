CREATE TABLE "graph"."changes" (
	"tenant_id" text NOT NULL,
	"version" bigint NOT NULL,
	"payload" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "changes_tenant_id_version_pk" PRIMARY KEY("tenant_id","version")
);
--> statement-breakpoint
ALTER TABLE "graph"."tenant_stats" ADD COLUMN "version" bigint DEFAULT 0 NOT NULL;