"""Settings for the lab directory, all read from the environment (see .env.example)."""

import warnings
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

from celery.schedules import crontab
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured
from whitenoise.compress import Compressor

from directory.env import Env

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"
env = Env()

DEBUG = env.bool("DEBUG", False)
SECRET_KEY = env.str("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off.")
    # Development only: a fixed key so sessions survive restarts of `make run`.
    SECRET_KEY = "dev-insecure-key-do-not-use-in-production-0123456789abcdef"

ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "[::1]"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "django.contrib.sitemaps",
    "corsheaders",
    "django_filters",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "csp",
    "axes",
    # Dependencies point down this list: lab data over the three domain apps,
    # over search, over the shared models (app label "directory"); see
    # docs/architecture.md.
    "core",
    "jobs",
    "search",
    "people",
    "publications",
    "events",
    "labdata",
    "sources",
]

MIDDLEWARE = [
    # /healthz and /readyz for load balancers: answered before anything else.
    "core.health.health_endpoints",
    # One line per request with its id (X-Request-ID).
    "core.request_log.request_log",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "corsheaders.middleware.CorsMiddleware",
    # ETag and Last-Modified answered with 304 when the client has the same copy.
    "django.middleware.http.ConditionalGetMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    # A database error in a view: 503 with Retry-After instead of a 500.
    "core.unavailable.database_unavailable",
    # Last, as django-axes requires: turns a flagged sign-in into its lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "directory.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "directory.context_processors.lab",
            ],
            # The project package is not an app: its tag library is named here.
            "libraries": {"page_meta": "directory.templatetags.page_meta"},
        },
    },
]

WSGI_APPLICATION = "directory.wsgi.application"

DATABASES = {
    "default": {
        **env.db_url("DATABASE_URL", f"sqlite:///{VAR_DIR / 'directory.sqlite3'}"),
        "CONN_MAX_AGE": env.int("CONN_MAX_AGE", 60),
        "CONN_HEALTH_CHECKS": True,
    }
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # PostgreSQL's default random_page_cost (4) models spinning disks; with SSDs or
    # a cached working set, 1.1 is the usual setting: with 4, the authors of an API
    # page were joined by scanning all people instead of by index. Set
    # PG_RANDOM_PAGE_COST empty to keep the server's own value.
    if env.str("PG_RANDOM_PAGE_COST", "1.1").strip():
        DATABASES["default"].setdefault("OPTIONS", {})["options"] = (
            f"-c random_page_cost={env.float('PG_RANDOM_PAGE_COST', 1.1)}"
        )
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # A server that does not answer (network cut) fails a connection in this many
    # seconds instead of hanging the request.
    DATABASES["default"].setdefault("OPTIONS", {})["connect_timeout"] = env.int(
        "DATABASE_CONNECT_TIMEOUT", 5
    )
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets readers proceed while an admin edit writes; IMMEDIATE takes the
    # write lock at BEGIN so concurrent writers queue instead of failing.
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
    DATABASES["default"]["CONN_MAX_AGE"] = (
        0 if DEBUG else DATABASES["default"]["CONN_MAX_AGE"]
    )

# The web server stops any SQL statement that runs longer than this (0: never) and
# answers 503; commands and migrations are not bounded (core/statement_timeout.py).
STATEMENT_TIMEOUT_MS = env.int("STATEMENT_TIMEOUT_MS", 30_000)
# /readyz shows each check's details (hosts, errors) only to a probe sending
# `Authorization: Bearer <HEALTH_TOKEN>`; others get the status. Unset: nobody.
HEALTH_TOKEN = env.str("HEALTH_TOKEN", "")
# Its checks run at most once per this many seconds in each process.
HEALTH_CHECK_CACHE_SECONDS = env.float("HEALTH_CHECK_CACHE_SECONDS", 10)
# What a 503 (database unavailable) asks clients to wait, in seconds.
RETRY_AFTER_SECONDS = env.int("RETRY_AFTER_SECONDS", 30)

# Read replicas of the primary (comma-separated URLs, e.g. PostgreSQL streaming
# replicas): anonymous reads go there, everything else to the primary. The caches
# are invalidated when a write commits, so a replica must have applied the commit
# by then (synchronous_commit = remote_apply; see the README).
DATABASE_REPLICAS = []
for _n, _url in enumerate(env.list("DATABASE_REPLICA_URLS", default=[]), start=1):
    _replica = {
        **env.parse_db_url(f"DATABASE_REPLICA_URLS (replica {_n})", _url),
        "CONN_MAX_AGE": DATABASES["default"]["CONN_MAX_AGE"],
        "CONN_HEALTH_CHECKS": True,
    }
    if _replica["ENGINE"] != DATABASES["default"]["ENGINE"]:
        raise ImproperlyConfigured(
            f"DATABASE_REPLICA_URLS: replica {_n} is not the same kind of "
            "database as DATABASE_URL."
        )
    _replica["OPTIONS"] = {**DATABASES["default"].get("OPTIONS", {})}
    _replica["TEST"] = {"MIRROR": "default"}
    DATABASES[f"replica{_n}"] = _replica
    DATABASE_REPLICAS.append(f"replica{_n}")
# A replica is probed at most this often, and left out while it is unreachable or
# has not replayed the primary's last transactions for longer than the bound.
REPLICA_CHECK_SECONDS = env.int("REPLICA_CHECK_SECONDS", 5)
REPLICA_MAX_LAG_SECONDS = env.int("REPLICA_MAX_LAG_SECONDS", 30)
if DATABASE_REPLICAS:
    DATABASE_ROUTERS = ["directory.routers.PrimaryReplicaRouter"]
    MIDDLEWARE.insert(2, "directory.routers.replica_reads")

# Local memory by default; CACHE_URL (e.g. redis://127.0.0.1:6379/0) shares it between
# processes and servers.
# A cache that is down or slow is a miss, never an error: each operation waits at
# most CACHE_TIMEOUT_MS, and after a failure the site stops asking for
# CACHE_RETRY_SECONDS (core/cache_backend.py).
CACHES = {"default": env.cache_url("CACHE_URL", "locmem://")}
if CACHES["default"]["BACKEND"] == env.CACHE_SCHEMES["redis"]:
    _CACHE_TIMEOUT = env.int("CACHE_TIMEOUT_MS", 50) / 1000
    CACHES["default"]["BACKEND"] = "core.cache_backend.ResilientRedisCache"
    CACHES["default"]["OPTIONS"] = {
        "socket_connect_timeout": _CACHE_TIMEOUT,
        "socket_timeout": _CACHE_TIMEOUT,
        "retry_seconds": env.int("CACHE_RETRY_SECONDS", 5),
        **CACHES["default"].get("OPTIONS", {}),
    }

# The API throttle counts every process's calls in one place: Redis when CACHE_URL
# names it, without the breaker (a count that fails must not pass for zero), else
# files under THROTTLE_CACHE_DIR, which the processes of one machine share. A store
# that fails makes throttled API calls 503 (core/api/throttling.py).
if CACHES["default"]["BACKEND"] == "core.cache_backend.ResilientRedisCache":
    _redis_options = dict(CACHES["default"]["OPTIONS"])
    _redis_options.pop("retry_seconds")
    CACHES["throttle"] = {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": CACHES["default"]["LOCATION"],
        "OPTIONS": _redis_options,
    }
else:
    CACHES["throttle"] = {
        "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
        "LOCATION": env.str("THROTTLE_CACHE_DIR", str(VAR_DIR / "throttle")),
        # One file per client and scope; past this, a third are dropped at random.
        "OPTIONS": {"MAX_ENTRIES": 2000},
    }

# Without a shared cache every process on the host reads the data version from
# this file too, so that a write in one (another web worker, a command) reaches
# every worker's own cache. Redis shares the version itself: empty by default then.
_SHARED_CACHE = CACHES["default"]["BACKEND"] != env.CACHE_SCHEMES["locmem"]
DATA_VERSION_FILE = env.str(
    "DATA_VERSION_FILE", "" if _SHARED_CACHE else str(VAR_DIR / "data-version")
)
DATA_VERSION_FILE = Path(DATA_VERSION_FILE) if DATA_VERSION_FILE else None

# Outgoing mail: smtp://user:password@host:587 (smtp+tls:// or smtp+ssl:// for
# TLS), or consolemail:// to print it; unset, Django's own SMTP at localhost:25.
_email = env.email_url("EMAIL_URL", "smtp://localhost:25")
EMAIL_BACKEND = _email["EMAIL_BACKEND"]
EMAIL_HOST = _email["EMAIL_HOST"] or "localhost"
EMAIL_PORT = _email["EMAIL_PORT"] or 25
EMAIL_HOST_USER = _email["EMAIL_HOST_USER"] or ""
EMAIL_HOST_PASSWORD = _email["EMAIL_HOST_PASSWORD"] or ""
EMAIL_USE_TLS = _email.get("EMAIL_USE_TLS", False)
EMAIL_USE_SSL = _email.get("EMAIL_USE_SSL", False)

# After a write, count the unfiltered lists' facets again in a background thread.
WARM_CACHE_AFTER_WRITE = env.bool("WARM_CACHE_AFTER_WRITE", True)

# Long work (syncing members from their sources) runs on a Celery queue when
# CELERY_BROKER_URL names a broker (redis://127.0.0.1:6379/1, amqp://…); without
# one it runs in the foreground of the command or admin page that asked for it.
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", "").strip()
# Celery fails over between URLs separated by ";": each is checked.
for _broker in filter(None, (url.strip() for url in CELERY_BROKER_URL.split(";"))):
    _scheme = urlsplit(_broker).scheme
    if _scheme not in ("redis", "rediss", "amqp", "amqps", "pyamqp"):
        raise ImproperlyConfigured(
            f"CELERY_BROKER_URL must be redis:// or amqp:// URLs, got {_scheme}://…"
        )
# One queue name per site, so that sites sharing a broker keep their jobs apart.
CELERY_TASK_DEFAULT_QUEUE = env.str("CELERY_QUEUE", "directory")
# The job's row in the database is its result: no result backend to run.
CELERY_TASK_IGNORE_RESULT = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_TIMEOUT = 3
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Publishing to a broker that is down gives up at once (the job is then kept as
# "waiting for the job queue") instead of holding the admin's request for seconds.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "socket_connect_timeout": 3,
    "socket_timeout": 5,
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.2,
    "interval_max": 0.5,
}
CELERY_TIMEZONE = env.str("TIME_ZONE", "UTC")
# `celery -A directory beat` sends these; the schedule lives here, in code, since
# it changes with a release rather than from the admin.
CELERY_BEAT_SCHEDULE = {
    # Jobs asked for while the broker was unreachable are queued once it is back.
    "requeue-unavailable-jobs": {
        "task": "jobs.requeue_unavailable",
        "schedule": env.int("JOBS_REQUEUE_EVERY", 300),
    },
}
# Every member connected to ORCID or OpenAlex is synced daily at SYNC_SOURCES_AT
# (HH:MM in TIME_ZONE; empty for no scheduled sync).
SYNC_SOURCES_AT = env.time_of_day("SYNC_SOURCES_AT", "03:00")
if SYNC_SOURCES_AT:
    CELERY_BEAT_SCHEDULE["sync-sources-daily"] = {
        "task": "sources.sync_all",
        "schedule": crontab(hour=SYNC_SOURCES_AT[0], minute=SYNC_SOURCES_AT[1]),
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

_VALIDATORS = "django.contrib.auth.password_validation"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": f"{_VALIDATORS}.UserAttributeSimilarityValidator"},
    {
        "NAME": f"{_VALIDATORS}.MinimumLengthValidator",
        "OPTIONS": {"min_length": 12},
    },
    {"NAME": f"{_VALIDATORS}.CommonPasswordValidator"},
    {"NAME": f"{_VALIDATORS}.NumericPasswordValidator"},
]

AUTHENTICATION_BACKENDS = [
    # First, so that a locked-out sign-in is refused before any password is checked.
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# Brute-force protection of the sign-in form: after LOGIN_FAILURE_LIMIT wrong
# passwords for one username from one address, that pair is refused (429) for
# LOGIN_COOLOFF_MINUTES, even with the right password. `manage.py axes_reset` unlocks.
# Password spraying (one guess each for many usernames) is stopped per address
# after LOGIN_ADDRESS_FAILURE_LIMIT wrong passwords in all (core/lockout.py).
AXES_HANDLER = "core.lockout.AddressLimitHandler"
AXES_FAILURE_LIMIT = env.int("LOGIN_FAILURE_LIMIT", 5)
LOGIN_ADDRESS_FAILURE_LIMIT = env.int("LOGIN_ADDRESS_FAILURE_LIMIT", 20)
if LOGIN_ADDRESS_FAILURE_LIMIT < AXES_FAILURE_LIMIT:
    raise ImproperlyConfigured(
        "LOGIN_ADDRESS_FAILURE_LIMIT must be at least LOGIN_FAILURE_LIMIT"
    )
AXES_COOLOFF_TIME = timedelta(minutes=env.int("LOGIN_COOLOFF_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "ip_address"]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "lockout.html"
AXES_CLIENT_IP_CALLABLE = "core.client_ip.client_ip"
# Reverse proxies in front of the app that append to X-Forwarded-For (nginx alone:
# 1). With 0 the connecting address is the client's, and the header is ignored,
# since anyone can send it.
PROXY_COUNT = env.int("PROXY_COUNT", 0)

LANGUAGE_CODE = "en-us"
TIME_ZONE = env.str("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(env.str("STATIC_ROOT", str(VAR_DIR / "static")))
MEDIA_URL = "media/"
MEDIA_ROOT = Path(env.str("MEDIA_ROOT", str(VAR_DIR / "media")))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}
WHITENOISE_USE_FINDERS = DEBUG
# Source maps are read by browsers' developer tools only: serving them uncompressed
# halves the compression `collectstatic` does at each deployment.
WHITENOISE_SKIP_COMPRESS_EXTENSIONS = (*Compressor.SKIP_COMPRESS_EXTENSIONS, "map")

# Photos: a byte cap and a pixel cap checked before full decoding.
PHOTO_MAX_BYTES = env.int("PHOTO_MAX_BYTES", 5 * 1024 * 1024)
PHOTO_MAX_PIXELS = env.int("PHOTO_MAX_PIXELS", 40_000_000)
DATA_UPLOAD_MAX_MEMORY_SIZE = env.int("DATA_UPLOAD_MAX_MEMORY_SIZE", 10 * 1024 * 1024)

# Where members' records are read from (sources/): ORCID's public API and OpenAlex,
# which asks callers to name a contact address for its polite pool.
ORCID_API_URL = env.str("ORCID_API_URL", "https://pub.orcid.org/v3.0").rstrip("/")
OPENALEX_API_URL = env.str("OPENALEX_API_URL", "https://api.openalex.org").rstrip("/")
OPENALEX_MAILTO = env.str("OPENALEX_MAILTO", "")
# urllib3's backoff factor for retries of a failing source: 0, 1, 2, 4 s apart.
SOURCES_RETRY_BACKOFF = 0.5

# Production hardening: on unless DEBUG, each switchable by its own variable so
# that plain HTTP on loopback stays possible.
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", not DEBUG)
SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", not DEBUG)
CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", not DEBUG)
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", 0 if DEBUG else 31_536_000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", not DEBUG)
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", not DEBUG)
SECURE_PROXY_SSL_HEADER = (
    ("HTTP_X_FORWARDED_PROTO", "https") if env.bool("BEHIND_TLS_PROXY", False) else None
)
SECURE_REFERRER_POLICY = "same-origin"
# No inline script or style anywhere: every script and stylesheet is a static file.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
X_FRAME_OPTIONS = "DENY"

REST_FRAMEWORK = {
    # Set explicitly: DRF's own default would let anyone write.
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.DjangoModelPermissionsOrAnonReadOnly"
    ],
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # Token first, so an anonymous write is answered 401 with WWW-Authenticate.
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_PAGINATION_CLASS": "core.api.pagination.Pagination",
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    "DEFAULT_THROTTLE_CLASSES": [
        "core.api.throttling.AnonThrottle",
        "core.api.throttling.UserThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env.str("API_ANON_RATE", "120/minute"),
        "user": env.str("API_USER_RATE", "1200/minute"),
    },
    "DEFAULT_SCHEMA_CLASS": "core.api.schema.DirectorySchema",
    "EXCEPTION_HANDLER": "core.api.errors.api_exception_handler",
    "URL_FORMAT_OVERRIDE": "format",
    # Throttling keys on the same client address as the sign-in lockout; DRF's
    # default (None) would trust any X-Forwarded-For a client sends.
    "NUM_PROXIES": PROXY_COUNT,
}

# Search by meaning (docs/architecture.md, README): needs requirements-semantic.txt.
SEMANTIC_SEARCH = env.bool("SEMANTIC_SEARCH", False)

SPECTACULAR_SETTINGS = {
    "TITLE": "Lab directory API",
    "DESCRIPTION": (
        "The lab directory's members, publications and events. Lists take the same "
        "filters as the site's pages (`q`, `topic`, `role`, `year`, `venue`…), "
        "`facets=` for counts, `page`/`page_size` (at most 200) and `ordering`. "
        "Anonymous clients read; writes need a token (`Authorization: Token …`) or a "
        "session, and the matching model permission. Errors are JSON: "
        '`{"error": {"status", "code", "message", "fields"}}`.'
    ),
    "VERSION": "1.0.0",
    # One description per resource, shown once above its operations.
    "TAGS": [
        {
            "name": "people",
            "description": "Members, with their whole profile on the detail "
            "endpoint, similar members and how two members are connected.",
        },
        {
            "name": "publications",
            "description": "Publications with their authors in print order, members "
            "linked; also as BibTeX and CSL-JSON.",
        },
        {"name": "events", "description": "News, talks, awards and other events."},
        {
            "name": "topics",
            "description": "Research topics; filtering by a topic includes the "
            "topics below it.",
        },
        {
            "name": "organizations",
            "description": "Universities, companies and labs that members belong to "
            "or came from.",
        },
        {
            "name": "venues",
            "description": "Conferences, journals, workshops and preprint servers.",
        },
    ],
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "SCHEMA_PATH_PREFIX": "/api/",
    "ENUM_NAME_OVERRIDES": {
        "PersonRoleEnum": "people.models.Role",
        "PersonStatusEnum": "people.models.Person.Status",
        "PublicationStatusEnum": "publications.models.Publication.Status",
        "PublicationKindEnum": "publications.models.Publication.Kind",
        "EventKindEnum": "events.models.Event.Kind",
        "EventLinkKindEnum": "events.models.EventLink.Kind",
        "OrganizationKindEnum": "core.models.Organization.Kind",
        "VenueKindEnum": "publications.models.Venue.Kind",
        "PublicationLinkKindEnum": "publications.models.PublicationLink.Kind",
        "PersonLinkKindEnum": "people.models.PersonLink.Kind",
        "ExperienceKindEnum": "people.models.Experience.Kind",
        "ServiceKindEnum": "people.models.Service.Kind",
    },
}

# Other sites may read the API from the browser; nothing is opened for writing.
CORS_URLS_REGEX = r"^/api/.*$"
CORS_ALLOWED_ORIGINS = env.list("CORS_ALLOWED_ORIGINS", default=[])
CORS_ALLOW_ALL_ORIGINS = env.bool("CORS_ALLOW_ALL_ORIGINS", False)
CORS_ALLOW_METHODS = ["GET", "HEAD", "OPTIONS"]

# One line per request (logger core.requests, INFO) and every other line with the
# request's id; LOG_FORMAT=json writes each line as a JSON object.
LOG_FORMAT = env.str("LOG_FORMAT", "text")
if LOG_FORMAT not in ("text", "json"):
    raise ImproperlyConfigured(f"LOG_FORMAT must be text or json, got {LOG_FORMAT!r}")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": "core.request_log.RequestIdFilter"}},
    "formatters": {
        "text": {
            "()": "core.request_log.TextFormatter",
            "format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s",
        },
        "json": {"()": "core.request_log.JsonFormatter"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "filters": ["request_id"],
            "formatter": LOG_FORMAT,
        }
    },
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", "WARNING")},
    "loggers": {
        "core.requests": {"level": env.str("REQUEST_LOG_LEVEL", "INFO")},
    },
}

# Errors go to Sentry when SENTRY_DSN is set and sentry-sdk is installed
# (requirements-sentry.txt); without the package the DSN is ignored with a warning.
SENTRY_DSN = env.str("SENTRY_DSN", "")
if SENTRY_DSN:
    try:
        import sentry_sdk
    except ImportError:
        warnings.warn(
            "SENTRY_DSN is set but sentry-sdk is not installed "
            "(pip install -r requirements-sentry.txt): errors are not reported.",
            stacklevel=1,
        )
    else:
        sentry_sdk.init(
            dsn=SENTRY_DSN,
            environment=env.str("SENTRY_ENVIRONMENT", "production"),
            send_default_pii=False,
        )

SERVE_MEDIA = env.bool("SERVE_MEDIA", True)
