CREATE TABLE "graph"."para_item_versions" (
	"tenant_id" text NOT NULL,
	"para_item_id" text NOT NULL,
	"status_version" integer NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "para_item_versions_tenant_id_para_item_id_pk" PRIMARY KEY("tenant_id","para_item_id")
);
