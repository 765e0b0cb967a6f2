package dev.sluice.prometheus;

import static dev.sluice.prometheus.Shape.COUNTER;
import static dev.sluice.prometheus.Shape.EMPTY;
import static dev.sluice.prometheus.Shape.EXPONENTIAL;
import static dev.sluice.prometheus.Shape.GAUGE;
import static dev.sluice.prometheus.Shape.HISTOGRAM;
import static dev.sluice.prometheus.Shape.SUMMARY;
import static dev.sluice.prometheus.Shape.UP_DOWN;
import static dev.sluice.prometheus.TranslationStrategy.NO_TRANSLATION;
import static dev.sluice.prometheus.TranslationStrategy.NO_UTF8_ESCAPING_WITH_SUFFIXES;
import static dev.sluice.prometheus.TranslationStrategy.UNDERSCORE_ESCAPING_WITHOUT_SUFFIXES;
import static dev.sluice.prometheus.TranslationStrategy.UNDERSCORE_ESCAPING_WITH_SUFFIXES;

import java.util.ArrayList;
import java.util.List;

/**
 * What the Collector v0.161 names OTLP metrics, per strategy: the situations otlptranslator
 * v1.0.0's own tests cover, and the corners of its rules that they do not (each noted). An empty
 * expected name means the Collector refuses the metric.
 */
final class MetricNameCases {
  record Case(
      TranslationStrategy strategy,
      String namespace,
      String name,
      String unit,
      Shape shape,
      String expected) {
    @Override
    public String toString() {
      return strategy.configName()
          + (namespace.isEmpty() ? "" : " ns=" + namespace)
          + " "
          + shape
          + " '"
          + name
          + "' ["
          + unit
          + "] -> '"
          + expected
          + "'";
    }
  }

  private final List<Case> cases = new ArrayList<>();
  private TranslationStrategy strategy;
  private String namespace = "";

  private MetricNameCases() {}

  private MetricNameCases with(TranslationStrategy strategy, String namespace) {
    this.strategy = strategy;
    this.namespace = namespace;
    return this;
  }

  private MetricNameCases add(String name, String unit, Shape shape, String expected) {
    cases.add(new Case(strategy, namespace, name, unit, shape, expected));
    return this;
  }

  static List<Case> all() {
    MetricNameCases table = new MetricNameCases();
    table.escapedWithSuffixes().escapedWithoutSuffixes().keptWithSuffixes().keptAsTheyAre();
    return table.cases;
  }

  private MetricNameCases escapedWithSuffixes() {
    with(UNDERSCORE_ESCAPING_WITH_SUFFIXES, "")
        // Type suffixes.
        .add("jobs.done", "", COUNTER, "jobs_done_total")
        .add("pool.usage", "1", GAUGE, "pool_usage_ratio")
        .add("items.seen", "1", COUNTER, "items_seen_total")
        .add("sessions.open", "", UP_DOWN, "sessions_open")
        .add("orphan", "", EMPTY, "orphan")
        .add("hits_total", "", COUNTER, "hits_total")
        .add("load_ratio", "1", GAUGE, "load_ratio")
        // Not in otlptranslator's tests: every "total" token moves to the end, a counter's only.
        .add("total.hits", "", COUNTER, "hits_total")
        .add("jobs.total.count", "", UP_DOWN, "jobs_total_count")
        .add("ratio.of.hits", "1", GAUGE, "of_hits_ratio")
        .add("queue.depth", "1", UP_DOWN, "queue_depth")
        .add("load", " 1", GAUGE, "load")
        // Units and their words.
        .add("page.load", "ms", GAUGE, "page_load_milliseconds")
        .add("heap.used", "By", GAUGE, "heap_used_bytes")
        .add("call.time", "s", HISTOGRAM, "call_time_seconds")
        .add("body.size", "By", EXPONENTIAL, "body_size_bytes")
        .add("rpc.latency", "ms", SUMMARY, "rpc_latency_milliseconds")
        .add("uptime", "d", GAUGE, "uptime_days")
        .add("drain", "h", GAUGE, "drain_hours")
        .add("lease", "min", GAUGE, "lease_minutes")
        .add("jitter", "us", GAUGE, "jitter_microseconds")
        .add("tick", "ns", GAUGE, "tick_nanoseconds")
        .add("cache", "KiBy", GAUGE, "cache_kibibytes")
        .add("rss", "MiBy", GAUGE, "rss_mebibytes")
        .add("volume", "GiBy", GAUGE, "volume_gibibytes")
        .add("pool", "TiBy", GAUGE, "pool_tibibytes")
        .add("upload", "KBy", GAUGE, "upload_kilobytes")
        .add("download", "MBy", GAUGE, "download_megabytes")
        .add("backup", "GBy", GAUGE, "backup_gigabytes")
        .add("archive", "TBy", GAUGE, "archive_terabytes")
        .add("cable", "m", GAUGE, "cable_meters")
        .add("rail", "V", GAUGE, "rail_volts")
        .add("draw", "A", GAUGE, "draw_amperes")
        .add("spent", "J", GAUGE, "spent_joules")
        .add("power", "W", GAUGE, "power_watts")
        .add("mass", "g", GAUGE, "mass_grams")
        .add("cpu.temp", "Cel", GAUGE, "cpu_temp_celsius")
        .add("clock", "Hz", GAUGE, "clock_hertz")
        .add("disk.busy", "%", GAUGE, "disk_busy_percent")
        .add("packets", "{packet}", GAUGE, "packets")
        .add("flows", "widgets", GAUGE, "flows_widgets")
        // "Per" units.
        .add("arrivals", "1/s", GAUGE, "arrivals_per_second")
        .add("egress", "By/s", GAUGE, "egress_bytes_per_second")
        .add("logins", "1/m", GAUGE, "logins_per_minute")
        .add("builds", "1/h", GAUGE, "builds_per_hour")
        .add("deploys", "1/d", GAUGE, "deploys_per_day")
        .add("releases", "1/w", GAUGE, "releases_per_week")
        .add("invoices", "1/mo", GAUGE, "invoices_per_month")
        .add("renewals", "1/y", GAUGE, "renewals_per_year")
        .add("bursts", "1/fortnight", GAUGE, "bursts_per_fortnight")
        .add("reads", "By/{op}", GAUGE, "reads_bytes")
        .add("disk.io", "{operation}/s", GAUGE, "disk_io_per_second")
        .add("blob", "By/", GAUGE, "blob_bytes")
        .add("blob", " By / s ", GAUGE, "blob_bytes_per_second")
        .add("blob", "/", GAUGE, "blob")
        .add("fetches", "1/s", COUNTER, "fetches_per_second_total")
        // Go trims Unicode white space, no-break spaces too.
        .add("cpu.temp", "\u00a0Cel\u3000", GAUGE, "cpu_temp_celsius")
        // A unit word already among the name's tokens, anywhere, is not added again.
        .add("query_seconds", "s", GAUGE, "query_seconds")
        .add("seconds.behind.primary", "s", GAUGE, "seconds_behind_primary")
        // ... but a "per" word is always added: it never equals a single token.
        .add("arrivals_per_second", "1/s", GAUGE, "arrivals_per_second_per_second")
        // Escaping.
        .add("http.server.request.duration", "s", HISTOGRAM, "http_server_request_duration_seconds")
        .add("http.client.requests", "1", COUNTER, "http_client_requests_total")
        .add("a__b..c__", "", GAUGE, "a_b_c")
        .add("résumé.views", "", COUNTER, "r_sum_views_total")
        .add("rows", "row__count__thing", GAUGE, "rows_row_count_thing")
        .add("rows", "row@per#thing/col$s", GAUGE, "rows_row_per_thing_per_col_s")
        .add("payload", "By@", COUNTER, "payload_By__total")
        .add("9lives", "", GAUGE, "_9lives")
        .add("", "s", GAUGE, "seconds")
        // Refused: nothing left, or underscores only.
        .add("", "", GAUGE, "")
        .add("@#$%", "", GAUGE, "")
        .add("!?", "", COUNTER, "total");
    with(UNDERSCORE_ESCAPING_WITH_SUFFIXES, "shop")
        .add("checkout.duration", "s", HISTOGRAM, "shop_checkout_duration_seconds")
        .add("orders", "1/s", COUNTER, "shop_orders_per_second_total")
        .add("2fa.prompts", "", COUNTER, "shop_2fa_prompts_total");
    // Not in otlptranslator's tests: the namespace goes in as configured, and is guarded too.
    with(UNDERSCORE_ESCAPING_WITH_SUFFIXES, "my.shop").add("orders", "", GAUGE, "my.shop_orders");
    with(UNDERSCORE_ESCAPING_WITH_SUFFIXES, "1st").add("orders", "", GAUGE, "_1st_orders");
    return this;
  }

  private MetricNameCases escapedWithoutSuffixes() {
    with(UNDERSCORE_ESCAPING_WITHOUT_SUFFIXES, "")
        .add("plain_gauge", "", GAUGE, "plain_gauge")
        .add("odd@name#with$marks", "", GAUGE, "odd_name_with_marks")
        .add("4xx.responses", "", GAUGE, "_4xx_responses")
        .add("odd@@##$$name", "", GAUGE, "odd_name")
        .add("", "", GAUGE, "")
        .add("@#$%", "", GAUGE, "")
        .add("@_#_$_%", "", GAUGE, "")
        .add("___", "", GAUGE, "___")
        .add("keep__these__runs", "", GAUGE, "keep__these__runs")
        .add(".edges.dropped.", "", GAUGE, "edges_dropped")
        .add("requests", "s", COUNTER, "requests")
        .add("http.client.requests", "1", COUNTER, "http_client_requests")
        .add("usage", "1", GAUGE, "usage");
    with(UNDERSCORE_ESCAPING_WITHOUT_SUFFIXES, "edge_ns").add("plain", "", GAUGE, "edge_ns_plain");
    with(UNDERSCORE_ESCAPING_WITHOUT_SUFFIXES, "edge@ns!!??").add("m", "", GAUGE, "edge_ns_m");
    // Not in otlptranslator's tests: with a namespace no digit guard is applied at all.
    with(UNDERSCORE_ESCAPING_WITHOUT_SUFFIXES, "app").add("5xx", "", GAUGE, "app_5xx");
    with(UNDERSCORE_ESCAPING_WITHOUT_SUFFIXES, "7").add("up", "", GAUGE, "7_up");
    return this;
  }

  private MetricNameCases keptWithSuffixes() {
    with(NO_UTF8_ESCAPING_WITH_SUFFIXES, "")
        .add("hits_total", "", COUNTER, "hits_total")
        .add("load_ratio", "1", GAUGE, "load_ratio")
        .add("query_seconds", "s", GAUGE, "query_seconds")
        .add("cpu_seconds_total", "s", COUNTER, "cpu_seconds_total")
        .add("otelcol_process_cpu_seconds", "s", COUNTER, "otelcol_process_cpu_seconds_total")
        .add("pedidos.éxitos", "", COUNTER, "pedidos.éxitos_total")
        .add("uso_cpú", "1", GAUGE, "uso_cpú_ratio")
        .add("latência", "ms", GAUGE, "latência_milliseconds")
        .add("consultas", "1/s", GAUGE, "consultas_per_second")
        .add("@#$%", "", COUNTER, "@#$%_total")
        .add("http.server.request.duration", "s", HISTOGRAM, "http.server.request.duration_seconds")
        .add("sessions.open", "", UP_DOWN, "sessions.open")
        // Not in otlptranslator's tests: the suffix is cut with any one character before it...
        .add("subtotal", "", COUNTER, "su_total")
        .add("rate.per_second", "1/s", GAUGE, "rate_per_second")
        // ... but only with one there,
        .add("total", "", COUNTER, "total_total")
        .add("xtotal", "", COUNTER, "xtotal_total")
        // ... and a multi-byte character before it would be cut in two: refused here.
        .add("maßtotal", "", COUNTER, "")
        // The unit word is compared with the name's end, not its tokens.
        .add("response_milliseconds", "s", GAUGE, "response_milliseconds")
        .add("seconds.behind", "s", GAUGE, "seconds.behind_seconds")
        // Unit words are not escaped.
        .add("reads", "By/µs", GAUGE, "reads_bytes_per_µs")
        .add("", "", COUNTER, "_total")
        .add("", "", GAUGE, "");
    with(NO_UTF8_ESCAPING_WITH_SUFFIXES, "ñandú")
        .add("consultas", "1/s", COUNTER, "ñandú_consultas_per_second_total");
    with(NO_UTF8_ESCAPING_WITH_SUFFIXES, "odd@ns").add("m", "", COUNTER, "odd@ns_m_total");
    return this;
  }

  private MetricNameCases keptAsTheyAre() {
    with(NO_TRANSLATION, "")
        .add("métrica_con_ñ", "", GAUGE, "métrica_con_ñ")
        .add("http.server.request.duration", "ms", HISTOGRAM, "http.server.request.duration")
        .add("http.client.requests", "1", COUNTER, "http.client.requests")
        .add("pool.usage", "1", GAUGE, "pool.usage")
        .add("1st.try", "", GAUGE, "1st.try")
        .add("___", "", GAUGE, "___");
    with(NO_TRANSLATION, "app_ns").add("métrica_con_ñ", "", GAUGE, "app_ns_métrica_con_ñ");
    return this;
  }
}
