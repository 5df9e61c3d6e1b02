"""Static word pools: project names, people, services, hosts and other fillers."""

from __future__ import annotations

PROJECT_NAMES: tuple[str, ...] = (
    "Atlas",
    "Beacon",
    "Cobalt",
    "Dune",
    "Ember",
    "Falcon",
    "Garnet",
    "Harbor",
    "Iris",
    "Juniper",
    "Kestrel",
    "Lumen",
    "Meridian",
    "Nimbus",
    "Onyx",
    "Pylon",
    "Quartz",
    "Raven",
    "Sable",
    "Tundra",
)

FIRST_NAMES: tuple[str, ...] = (
    "Raj",
    "Lena",
    "Mei",
    "Kenji",
    "Sofia",
    "Jonas",
    "Priya",
    "Diego",
    "Aisha",
    "Tom",
    "Yuki",
    "Carlos",
    "Hannah",
    "Wei",
    "Olu",
    "Marta",
    "Sam",
    "Ingrid",
    "Arjun",
    "Chloe",
    "Mateo",
    "Zara",
    "Felix",
    "Nadia",
    "Björn",
    "Lucía",
    "Hiro",
    "Fatima",
    "Noah",
    "Elif",
)

ROLES: tuple[str, ...] = (
    "SRE lead",
    "product manager",
    "designer",
    "backend dev",
    "frontend dev",
    "data engineer",
    "security reviewer",
    "engineering manager",
    "QA lead",
    "tech lead",
    "staff engineer",
    "platform engineer",
    "ML engineer",
    "support lead",
    "founder",
)

CUSTOMER_ROLES: tuple[str, ...] = (
    "CTO",
    "head of IT",
    "procurement",
    "VP engineering",
    "ops manager",
    "legal counsel",
    "account owner",
    "data protection officer",
)

CUSTOMERS: tuple[str, ...] = (
    "Acme",
    "Globex",
    "Initech",
    "Umbrella",
    "Hooli",
    "Stark Industries",
    "Wayne Corp",
    "Soylent",
    "Vandelay",
    "Tyrell",
    "Cyberdyne",
    "Massive Dynamic",
    "Wonka",
    "Oscorp",
)

SERVICES: tuple[str, ...] = (
    "api",
    "worker",
    "web",
    "gateway",
    "scheduler",
    "ingest",
    "search",
    "auth",
    "billing",
    "notifier",
    "exporter",
    "admin",
    "webhooks",
    "reports",
    "sync",
    "grpc",
)

HOST_STEMS: tuple[str, ...] = (
    "hetzner-fsn1",
    "hetzner-nbg1",
    "aws-euc1",
    "aws-use1",
    "gcp-ew4",
    "fly-ams",
    "ovh-gra",
    "do-fra1",
    "bare-metal",
    "mac-mini",
    "nuc",
    "build-box",
)

LIBS: tuple[str, ...] = (
    "postgres",
    "redis",
    "kafka",
    "nginx",
    "node",
    "python",
    "django",
    "fastapi",
    "react",
    "next.js",
    "terraform",
    "celery",
    "sqlite",
    "clickhouse",
    "pgbouncer",
    "grafana",
    "caddy",
    "traefik",
    "prometheus",
    "vite",
    "pydantic",
    "sqlalchemy",
    "tokio",
    "go",
)

REGIONS: tuple[str, ...] = (
    "eu-central-1",
    "eu-west-1",
    "us-east-1",
    "us-west-2",
    "ap-northeast-1",
    "fsn1",
    "nbg1",
    "hel1",
    "ams",
    "fra",
)

FLAGS: tuple[str, ...] = (
    "new_checkout",
    "sso_login",
    "dark_mode",
    "bulk_export",
    "rate_limit_v2",
    "async_ingest",
    "smart_retry",
    "beta_dashboard",
    "usage_billing",
    "audit_log_v2",
    "vector_search",
    "inline_edit",
    "webhooks_v3",
    "magic_links",
)

ENVIRONMENTS: tuple[str, ...] = ("staging", "preview", "qa", "demo", "sandbox", "canary")

DATA_KINDS: tuple[str, ...] = (
    "raw events",
    "audit logs",
    "user uploads",
    "invoices",
    "session logs",
    "backups",
    "metrics",
    "traces",
    "email archives",
    "exports",
)

JOBS: tuple[str, ...] = (
    "backup",
    "reindex",
    "invoice-run",
    "digest-email",
    "cleanup",
    "export",
    "sync",
    "report",
    "vacuum",
    "cert-renew",
)

DOMAINS: tuple[str, ...] = ("example.dev", "example.io", "corp.example", "example.net")

CHANNELS: tuple[str, ...] = (
    "Slack DMs",
    "email",
    "a Linear comment",
    "a quick call",
    "Signal",
    "the #ops channel",
    "Teams",
    "WhatsApp",
    "a written doc first",
)

TIMEZONES: tuple[str, ...] = (
    "Europe/Berlin",
    "Asia/Tokyo",
    "America/New_York",
    "Asia/Shanghai",
    "Europe/Madrid",
    "America/Los_Angeles",
    "Asia/Kolkata",
    "Europe/London",
    "America/Sao_Paulo",
)

EMOJI: tuple[str, ...] = (
    "✅",
    "🚀",
    "⚠️",
    "🔥",
    "📌",
    "🐛",
    "🎉",
    "👀",
    "🤔",
    "💡",
    "⏳",
    "🧪",
    "🛠️",
    "📦",
    "🙈",
    "☕",
    "🧹",
    "📝",
    "🔒",
    "🟢",
    "🟡",
    "🔴",
)

WEEKDAYS: tuple[str, ...] = (
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
)

MONTHS: tuple[str, ...] = (
    "Jan",
    "Feb",
    "Mar",
    "Apr",
    "May",
    "Jun",
    "Jul",
    "Aug",
    "Sep",
    "Oct",
    "Nov",
    "Dec",
)

FILES: tuple[str, ...] = (
    "src/api/routes.py",
    "src/worker/tasks.py",
    "app/models/user.rb",
    "web/src/App.tsx",
    "pkg/queue/consumer.go",
    "services/billing/invoice.py",
    "infra/main.tf",
    "docker-compose.yml",
    ".github/workflows/ci.yml",
    "src/utils/dates.ts",
    "README.md",
    "scripts/migrate.sh",
    "config/settings.toml",
    "lib/retry.py",
    "cmd/server/main.go",
)

FUNCTIONS: tuple[str, ...] = (
    "parse_invoice",
    "retry_with_backoff",
    "load_config",
    "handle_webhook",
    "sync_users",
    "compute_usage",
    "render_report",
    "refresh_token",
    "enqueue_job",
    "resolve_tenant",
)

ERRORS: tuple[str, ...] = (
    "connection refused",
    "context deadline exceeded",
    "too many open files",
    "OOMKilled",
    "permission denied (publickey)",
    "certificate has expired",
    'relation "users" does not exist',
    "ECONNRESET",
    "rate limit exceeded (429)",
    "disk quota exceeded",
    "deadlock detected",
    "no space left on device",
    "TLS handshake timeout",
    "invalid memory address or nil pointer dereference",
)

BRANCH_WORDS: tuple[str, ...] = (
    "fix",
    "feat",
    "chore",
    "refactor",
    "spike",
    "hotfix",
)

TOPIC_WORDS: tuple[str, ...] = (
    "retry",
    "pagination",
    "sso",
    "export",
    "billing",
    "onboarding",
    "search",
    "webhooks",
    "quota",
    "audit",
    "cache",
    "migration",
    "alerts",
    "invites",
    "rate-limit",
    "dashboard",
)

AGENTS: tuple[str, ...] = ("claude-code", "openclaw", "homebot", "ops-agent")

TAGS: tuple[str, ...] = (
    "deploy",
    "infra",
    "meeting",
    "incident",
    "planning",
    "research",
    "customer",
    "billing",
    "hiring",
    "security",
)

API_PATHS: tuple[str, ...] = (
    "/v1/items",
    "/v1/search",
    "/v1/orders",
    "/v1/users/me",
    "/v1/export",
    "/v1/invoices",
    "/v1/webhooks",
    "/v2/events",
    "/v1/auth/token",
    "/v1/reports",
    "/graphql",
    "/v1/files",
    "/v1/teams",
    "/v1/billing/usage",
    "/v1/import",
)

ENV_VARS: tuple[str, ...] = (
    "WORKER_CONCURRENCY",
    "DB_POOL_SIZE",
    "MAX_UPLOAD_MB",
    "REQUEST_TIMEOUT_S",
    "CACHE_TTL_S",
    "RETRY_LIMIT",
    "BATCH_SIZE",
    "MAX_CONNECTIONS",
    "RATE_BURST",
    "GUNICORN_WORKERS",
)
