package cfscale.javaapp;

import io.pivotal.cfenv.core.CfApplication;
import io.pivotal.cfenv.core.CfEnv;
import io.pivotal.cfenv.core.CfService;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Every setting of java-app, read from the environment once, validated, and logged once with
 * passwords masked. Names, defaults, ranges and meanings are those of the settings spec shared
 * with node-app, contract/settings.json (ConfigTest checks every range and default against it). A bad setting is never clamped: it stops the app (exit 1) with one line
 * naming the variable, because a benchmark run with a silently changed setting is a lie.
 *
 * @param port               PORT, listen port (default 8080; 0 = any free port, for tests)
 * @param instanceIndex      CF_INSTANCE_INDEX, sent as X-Instance-Index and recorded (default 0)
 * @param appName            APP_NAME, recorded in timings (default VCAP_APPLICATION.application_name, else java-app)
 * @param database           the app database: DB_SERVICE_NAME binding / first postgres binding / DATABASE_URL
 * @param resultsDatabase    the results database (RESULTS_SERVICE_NAME binding / RESULTS_DATABASE_URL), or null
 * @param dbPoolSize         DB_POOL_SIZE, connections in the pool (default 10)
 * @param dbPoolTimeoutMs    DB_POOL_TIMEOUT_MS, longest wait for a connection before 503 (default 2000)
 * @param dbStatementTimeoutMs DB_STATEMENT_TIMEOUT_MS, longest app statement before 503 (default 5000; see AdStore)
 * @param timingsEnabled     TIMINGS_ENABLED, recording on at start (default true)
 * @param timingsCapacity    TIMINGS_CAPACITY, records the timing buffer holds (default 100000)
 * @param timingsFlushOnExit TIMINGS_FLUSH_ON_EXIT, flush timings on SIGTERM (default false)
 * @param shutdownTimeoutMs  SHUTDOWN_TIMEOUT_MS, longest graceful shutdown (default 8000; CF kills after 10 s)
 * @param httpMaxHeaderBytes HTTP_MAX_HEADER_BYTES, largest request head accepted (default 16384)
 * @param httpHeaderTimeoutMs HTTP_HEADER_TIMEOUT_MS, longest wait for a complete request head (default 10000)
 * @param httpIdleTimeoutMs  HTTP_IDLE_TIMEOUT_MS, idle keep-alive connections closed after (default 95000)
 * @param jettyThreadsMin    JETTY_THREADS_MIN, Jetty thread pool minimum (default 8)
 * @param jettyThreadsMax    JETTY_THREADS_MAX, Jetty thread pool maximum (default 200; study: 10-400)
 * @param controlToken       CONTROL_TOKEN, the credential of the /timings endpoints, or null when unset
 *                           (the app still starts: a plain {@code cf push} sets none)
 * @param controlOpen        LOCAL_DEV_NO_CONTROL_TOKEN=true and no token: the control endpoints open to
 *                           anyone; without a token and without it they answer 401 to every request
 */
record Config(int port, int instanceIndex, String appName, DatabaseBinding database,
    DatabaseBinding resultsDatabase, int dbPoolSize, int dbPoolTimeoutMs, int dbStatementTimeoutMs,
    boolean timingsEnabled, int timingsCapacity, boolean timingsFlushOnExit, int shutdownTimeoutMs,
    int httpMaxHeaderBytes, int httpHeaderTimeoutMs, int httpIdleTimeoutMs,
    int jettyThreadsMin, int jettyThreadsMax, String controlToken, boolean controlOpen) {

  static final String DEFAULT_APP_NAME = "java-app";
  static final String DEFAULT_RESULTS_SERVICE_NAME = "results-db";
  /** HikariCP refuses connectionTimeout below 250 ms (it would clamp); we refuse instead. */
  static final int MIN_POOL_TIMEOUT_MS = 250;
  /**
   * Jetty leases an acceptor and a selector thread of the pool (see AppServer); below this
   * too few would be left to serve requests.
   */
  static final int MIN_JETTY_THREADS_MAX = 4;
  /** CONTROL_TOKEN: RFC 6750's b64token characters, long enough not to be guessed. */
  private static final Pattern CONTROL_TOKEN = Pattern.compile("[A-Za-z0-9._~+/=-]{32,256}");

  static Config fromEnv(Map<String, String> env) throws ConfigException {
    Env e = new Env(env);
    int port = e.integer("PORT", 8080, 0, 65535);
    int instanceIndex = e.integer("CF_INSTANCE_INDEX", 0, 0, 1_000_000);
    int dbPoolSize = e.integer("DB_POOL_SIZE", 10, 1, 1000);
    int dbPoolTimeoutMs = e.integer("DB_POOL_TIMEOUT_MS", 2000, MIN_POOL_TIMEOUT_MS, 600_000);
    int dbStatementTimeoutMs = e.integer("DB_STATEMENT_TIMEOUT_MS", 5000, 100, 600_000);
    boolean timingsEnabled = e.bool("TIMINGS_ENABLED", true);
    int timingsCapacity = e.integer("TIMINGS_CAPACITY", 100_000, 1, 10_000_000);
    boolean timingsFlushOnExit = e.bool("TIMINGS_FLUSH_ON_EXIT", false);
    int shutdownTimeoutMs = e.integer("SHUTDOWN_TIMEOUT_MS", 8000, 100, 600_000);
    int httpMaxHeaderBytes = e.integer("HTTP_MAX_HEADER_BYTES", 16_384, 1024, 1_048_576);
    int httpHeaderTimeoutMs = e.integer("HTTP_HEADER_TIMEOUT_MS", 10_000, 100, 600_000);
    int httpIdleTimeoutMs = e.integer("HTTP_IDLE_TIMEOUT_MS", 95_000, 2000, 3_600_000);
    e.notBelow("HTTP_IDLE_TIMEOUT_MS", httpIdleTimeoutMs, "HTTP_HEADER_TIMEOUT_MS", httpHeaderTimeoutMs);
    int threadsMin = e.integer("JETTY_THREADS_MIN", 8, 1, 10_000);
    int threadsMax = e.integer("JETTY_THREADS_MAX", 200, MIN_JETTY_THREADS_MAX, 10_000);
    e.notBelow("JETTY_THREADS_MAX", threadsMax, "JETTY_THREADS_MIN", threadsMin);
    String appName = appName(e);
    DatabaseBinding database;
    DatabaseBinding results;
    String vcapServices = e.get(Bindings.VARIABLE);
    if (vcapServices != null) {
      Bindings bindings = Bindings.parse(vcapServices);
      String resultsName = e.text("RESULTS_SERVICE_NAME", DEFAULT_RESULTS_SERVICE_NAME);
      String dbName = e.get("DB_SERVICE_NAME");
      CfService db = dbName != null ? bindings.byName(dbName) : bindings.firstPostgres(resultsName);
      if (db == null && dbName != null) {
        throw new ConfigException("DB_SERVICE_NAME: no binding named \"" + dbName + "\" in VCAP_SERVICES");
      }
      if (db == null) {
        throw new ConfigException("DB_SERVICE_NAME: not set and VCAP_SERVICES has no postgres binding (tag or label) besides the results one");
      }
      database = Bindings.connection(db);
      CfService res = bindings.byName(resultsName);
      if (res == null && e.get("RESULTS_SERVICE_NAME") != null) {
        throw new ConfigException("RESULTS_SERVICE_NAME: no binding named \"" + resultsName + "\" in VCAP_SERVICES");
      }
      String resultsUrl = e.get("RESULTS_DATABASE_URL");
      results = res != null ? Bindings.connection(res)
          : resultsUrl != null ? DatabaseBinding.fromUrl("RESULTS_DATABASE_URL", resultsUrl) : null;
    } else {
      String url = e.get("DATABASE_URL");
      if (url == null) {
        throw new ConfigException("DATABASE_URL: no database (set VCAP_SERVICES or DATABASE_URL)");
      }
      database = DatabaseBinding.fromUrl("DATABASE_URL", url);
      String resultsUrl = e.get("RESULTS_DATABASE_URL");
      results = resultsUrl == null ? null : DatabaseBinding.fromUrl("RESULTS_DATABASE_URL", resultsUrl);
    }
    String controlToken = controlToken(e);
    boolean controlOpen = e.bool("LOCAL_DEV_NO_CONTROL_TOKEN", false) && controlToken == null;
    return new Config(port, instanceIndex, appName, database, results, dbPoolSize, dbPoolTimeoutMs,
        dbStatementTimeoutMs, timingsEnabled, timingsCapacity, timingsFlushOnExit, shutdownTimeoutMs,
        httpMaxHeaderBytes, httpHeaderTimeoutMs, httpIdleTimeoutMs, threadsMin, threadsMax, controlToken, controlOpen);
  }

  /** CONTROL_TOKEN, or null when unset; its value is never part of a message. */
  private static String controlToken(Env e) throws ConfigException {
    String token = e.get("CONTROL_TOKEN");
    if (token == null) {
      return null;
    }
    if (!CONTROL_TOKEN.matcher(token).matches()) {
      throw new ConfigException("CONTROL_TOKEN must be 32 to 256 characters, each a letter, a digit or one of - . _ ~ + / = "
          + "(got " + token.length() + " characters)");
    }
    return token;
  }

  private static String appName(Env e) throws ConfigException {
    String name = e.get("APP_NAME");
    if (name != null) {
      return name;
    }
    String vcapApplication = e.get("VCAP_APPLICATION");
    if (vcapApplication != null) {
      CfApplication app;
      try {
        app = new CfEnv(vcapApplication, null).getApp();
      } catch (RuntimeException ex) {
        throw new ConfigException("VCAP_APPLICATION is not valid JSON");
      }
      String n = app == null ? null : app.getApplicationName();
      if (n != null && !n.isEmpty()) {
        return n;
      }
    }
    return DEFAULT_APP_NAME;
  }

  /** The effective settings on one line, passwords masked. */
  String describe() {
    return "PORT=" + port + " CF_INSTANCE_INDEX=" + instanceIndex + " APP_NAME=" + appName
        + " database=" + database + " results=" + (resultsDatabase == null ? "none" : resultsDatabase)
        + " DB_POOL_SIZE=" + dbPoolSize + " DB_POOL_TIMEOUT_MS=" + dbPoolTimeoutMs
        + " DB_STATEMENT_TIMEOUT_MS=" + dbStatementTimeoutMs
        + " JETTY_THREADS_MIN=" + jettyThreadsMin + " JETTY_THREADS_MAX=" + jettyThreadsMax
        + " TIMINGS_ENABLED=" + timingsEnabled + " TIMINGS_CAPACITY=" + timingsCapacity
        + " TIMINGS_FLUSH_ON_EXIT=" + timingsFlushOnExit + " SHUTDOWN_TIMEOUT_MS=" + shutdownTimeoutMs
        + " HTTP_MAX_HEADER_BYTES=" + httpMaxHeaderBytes + " HTTP_HEADER_TIMEOUT_MS=" + httpHeaderTimeoutMs
        + " HTTP_IDLE_TIMEOUT_MS=" + httpIdleTimeoutMs
        + " CONTROL_TOKEN=" + describeControl();
  }

  /** The control credential as the settings line shows it: masked, or what its absence means. */
  private String describeControl() {
    if (controlToken != null) {
      return "***";
    }
    return controlOpen ? "none (LOCAL_DEV_NO_CONTROL_TOKEN: /timings open to anyone)" : "none (control endpoints closed)";
  }

  /** The settings line: a record's own toString would show the control token. */
  @Override
  public String toString() {
    return describe();
  }

  /** Environment lookups with one rule: an empty value counts as unset. */
  private record Env(Map<String, String> env) {
    String get(String name) {
      String v = env.get(name);
      return v == null || v.isEmpty() ? null : v;
    }

    String text(String name, String fallback) {
      String v = get(name);
      return v == null ? fallback : v;
    }

    int integer(String name, int fallback, int min, int max) throws ConfigException {
      String v = get(name);
      if (v == null) {
        return fallback;
      }
      boolean digits = v.length() <= 10 && v.chars().allMatch(c -> c >= '0' && c <= '9');
      long n = digits ? Long.parseLong(v) : -1;
      if (!digits || n < min || n > max) {
        throw new ConfigException(name + " must be an integer from " + min + " to " + max + ", got \"" + v + "\"");
      }
      return (int) n;
    }

    /** The settings spec's notBelow: {@code name}'s value must be at least {@code other}'s. */
    void notBelow(String name, int value, String other, int otherValue) throws ConfigException {
      if (value < otherValue) {
        String given = get(name) == null ? Integer.toString(value) : get(name);
        throw new ConfigException(name + " must be >= " + other + " (" + otherValue + "), got \"" + given + "\"");
      }
    }

    boolean bool(String name, boolean fallback) throws ConfigException {
      String v = get(name);
      if (v == null) {
        return fallback;
      }
      if (v.equals("true") || v.equals("false")) {
        return v.equals("true");
      }
      throw new ConfigException(name + " must be true or false, got \"" + v + "\"");
    }
  }
}
