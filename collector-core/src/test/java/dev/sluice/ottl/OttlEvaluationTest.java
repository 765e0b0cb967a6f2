package dev.sluice.ottl;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.pdata.Batch;
import dev.sluice.pdata.BatchView;
import dev.sluice.pdata.view.SpanEventView;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Conditions evaluated over a real span, read through the views: OTTL's values and rules. */
class OttlEvaluationTest {
  /** What a condition gives for the rich span: true, false, or the failure's message. */
  private static Object evaluate(OttlContext context, String condition) throws Exception {
    OttlCondition.Evaluator evaluator = OttlCondition.parse(condition, context).newEvaluator();
    Batch batch = Requests.traces(Requests.richSpan());
    List<Object> results = new ArrayList<>();
    EvalContext item = new EvalContext();
    SpanEventView events = new SpanEventView();
    try {
      new BatchView()
          .forEachSpan(
              batch,
              (resource, scope, span) -> {
                item.block(resource, scope).span(span);
                if (context == OttlContext.SPANEVENT) {
                  span.events(events).next();
                  item.spanEvent(events);
                }
                try {
                  results.add(evaluator.matches(item));
                } catch (OttlEvaluationException e) {
                  results.add(e.getMessage());
                }
              });
    } finally {
      batch.clear();
    }
    assertThat(results).hasSize(1);
    return results.get(0);
  }

  private static void check(OttlContext context, Map<String, Object> table) throws Exception {
    for (Map.Entry<String, Object> row : table.entrySet()) {
      Object actual = evaluate(context, row.getKey());
      if (row.getValue() instanceof String fragment) {
        assertThat(actual).as(row.getKey()).isInstanceOf(String.class);
        assertThat((String) actual).as(row.getKey()).contains(fragment);
      } else {
        assertThat(actual).as(row.getKey()).isEqualTo(row.getValue());
      }
    }
  }

  @Test
  void comparesAsOttlDoes() throws Exception {
    Map<String, Object> t = new LinkedHashMap<>();
    t.put("attributes[\"s\"] == \"abc\"", true);
    t.put("attributes[\"s\"] != \"abc\"", false);
    t.put("attributes[\"i\"] == 42", true);
    t.put("attributes[\"i\"] == 42.0", true);
    t.put("attributes[\"i\"] < 42.5", true);
    t.put("attributes[\"d\"] > 1", true);
    t.put("attributes[\"d\"] >= 1.5 and attributes[\"d\"] <= 1.5", true);
    t.put("attributes[\"b\"] == true", true);
    t.put("attributes[\"missing\"] == nil", true);
    t.put("attributes[\"missing\"] != nil", false);
    t.put("attributes[\"s\"] == nil", false);
    t.put("attributes[\"s\"] == 1", false);
    t.put("attributes[\"s\"] != 1", true);
    t.put("attributes[\"s\"] < 1", false);
    t.put("attributes[\"s\"] < \"abd\"", true);
    t.put("\"\u00e9\" > \"z\"", true);
    t.put("attributes[\"bytes\"] == 0x0102", true);
    t.put("attributes[\"bytes\"] < 0x0103", true);
    t.put("nil == nil", true);
    t.put("1 == 1.0", true);
    t.put("kind == SPAN_KIND_SERVER", true);
    t.put("status.code == STATUS_CODE_ERROR and status.message == \"boom\"", true);
    t.put("start_time_unix_nano < end_time_unix_nano", true);
    t.put("not (name == \"x\")", true);
    t.put("name == \"x\" or kind == 2", true);
    t.put("name == \"x\" and kind == 2", false);
    t.put("attributes[\"b\"]", true);
    t.put("attributes[\"s\"]", "expected a bool, got a string");
    t.put("attributes[\"map\"] == 1", false);
    t.put("attributes[\"map\"] != \"v\"", true);
    t.put("attributes[\"map\"] < 1", false);
    t.put("attributes[\"list\"] == \"x\"", false);
    t.put("attributes[\"map\"] == nil", false);
    t.put(
        "attributes[\"map\"] == attributes[\"map\"]",
        "comparing a map with a map is not supported");
    check(OttlContext.SPAN, t);
  }

  @Test
  void readsPathsOfTheSpanItsScopeAndResource() throws Exception {
    Map<String, Object> t = new LinkedHashMap<>();
    t.put("name == \"GET /users/42\"", true);
    t.put("span.name == \"GET /users/42\"", true);
    t.put("trace_id == TraceID(0x0102030405060708090a0b0c0d0e0f10)", true);
    t.put("trace_id.string == \"0102030405060708090a0b0c0d0e0f10\"", true);
    t.put("span_id == SpanID(0x0102030405060708)", true);
    t.put("parent_span_id == SpanID(0x0000000000000000)", true);
    t.put("parent_span_id.string == \"\"", true);
    t.put("resource.attributes[\"service.name\"] == \"checkout\"", true);
    t.put("instrumentation_scope.name == \"tomcat\" and scope.version == \"1.0\"", true);
    t.put("attributes[\"list\"][1] == \"y\"", true);
    t.put("attributes[\"list\"][2] == 3", true);
    t.put("attributes[\"list\"][5] == \"y\"", "index 5 out of range for a list of 3");
    t.put("attributes[\"list\"][\"a\"] == \"y\"", "cannot index a list with [\"a\"]");
    t.put("attributes[\"map\"][\"k\"] == \"v\"", true);
    t.put("attributes[\"map\"][\"nope\"] == nil", true);
    t.put("attributes[\"missing\"][\"k\"] == nil", true);
    t.put("attributes[\"s\"][\"x\"] == nil", "cannot index a string with [\"x\"]");
    check(OttlContext.SPAN, t);
  }

  @Test
  void evaluatesTheConverters() throws Exception {
    Map<String, Object> t = new LinkedHashMap<>();
    t.put("IsMatch(name, \"^GET /users/\\\\d+$\")", true);
    t.put("IsMatch(name, \"^POST\")", false);
    t.put("IsMatch(attributes[\"i\"], \"^4\")", true);
    t.put("IsMatch(attributes[\"missing\"], \".*\")", false);
    t.put("IsMatch(attributes[\"u\"], \"\u00e9 \u2615\uD83D\uDE42$\")", true);
    t.put("IsMatch(attributes[\"map\"], \".*\")", "IsMatch cannot take a map");
    t.put(
        "IsString(attributes[\"s\"]) and IsInt(attributes[\"i\"]) and IsDouble(attributes[\"d\"])",
        true);
    t.put(
        "IsBool(attributes[\"b\"]) and IsMap(attributes[\"map\"]) and IsList(attributes[\"list\"])",
        true);
    t.put("IsMap(attributes) and not IsString(attributes[\"i\"])", true);
    t.put("Len(attributes[\"s\"]) == 3 and Len(attributes[\"list\"]) == 3", true);
    t.put("Len(attributes[\"map\"]) == 1 and Len(attributes) == 8", true);
    t.put("Len(attributes[\"u\"]) == 13", true);
    t.put("Len(attributes[\"i\"]) == 1", "Len cannot take a int");
    t.put(
        "Concat([attributes[\"s\"], attributes[\"i\"], attributes[\"d\"], attributes[\"b\"], attributes[\"missing\"], attributes[\"bytes\"]], \"-\") == \"abc-42-1.5-true-<nil>-0102\"",
        true);
    t.put("Split(name, \"/\")[1] == \"users\" and Len(Split(name, \"/\")) == 3", true);
    t.put("Len(Split(\"a\", \"\")) == 1 and Len(Split(\"\u00e9\u00e9\", \"\")) == 2", true);
    t.put("Split(name, \"/\")[3] == \"x\"", "index 3 out of range for a list of 3");
    t.put("Substring(name, 5, 5) == \"users\"", true);
    t.put("Substring(name, 4, 100) == \"users\"", "past the end of a string of 13 bytes");
    t.put("Substring(attributes[\"i\"], 0, 1) == \"4\"", "Substring expects a string, got a int");
    t.put("ToLowerCase(name) == \"get /users/42\"", true);
    t.put("ToUpperCase(attributes[\"u\"]) == \"CAF\u00c9 \u2615\uD83D\uDE42\"", true);
    t.put(
        "SHA256(attributes[\"s\"]) == \"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\"",
        true);
    t.put("Int(attributes[\"d\"]) == 1 and Int(\"12\") == 12 and Int(\"x\") == nil", true);
    t.put("Int(attributes[\"b\"]) == 1 and Int(attributes[\"map\"]) == nil", true);
    t.put("Double(attributes[\"i\"]) == 42.0 and Double(\"2.5\") == 2.5", true);
    t.put(
        "String(attributes[\"i\"]) == \"42\" and String(attributes[\"bytes\"]) == \"0102\"", true);
    t.put(
        "String(1.5) == \"1.5\" and String(-7) == \"-7\" and String(attributes[\"missing\"]) == nil",
        true);
    t.put("TraceID(attributes[\"bytes\"]) == trace_id", "TraceID expects 16 bytes");
    check(OttlContext.SPAN, t);
  }

  /** Vectors computed independently (Python's hashlib, and MurmurHash3 as Appleby defines it). */
  @Test
  void hashesAgreeWithKnownVectors() throws Exception {
    Map<String, Object> t = new LinkedHashMap<>();
    t.put("SHA1(\"Hello World\") == \"0a4d55a8d778e5022fab701977c5d840bbc486d0\"", true);
    t.put("SHA1(\"\") == \"da39a3ee5e6b4b0d3255bfef95601890afd80709\"", true);
    t.put(
        "SHA512(attributes[\"s\"]) == \"ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
            + "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f\"",
        true);
    t.put("MD5(\"Hello World\") == \"b10a8db164e0754105b7a99be72e3fe5\"", true);
    t.put("MD5(\"h\u00e9llo\") == \"be50e8478cf24ff3595bc7307fb91b50\"", true);
    // The Collector's own test vector for Murmur3Hash is "Hello World" -> "ce837619".
    t.put("Murmur3Hash(\"Hello World\") == \"ce837619\"", true);
    t.put("Murmur3Hash(\"\") == \"00000000\"", true);
    t.put("Murmur3Hash(attributes[\"s\"]) == \"fa93ddb3\"", true);
    t.put("Murmur3Hash(\"h\u00e9llo\") == \"68a09fbc\"", true);
    t.put("Murmur3Hash(\"password123\") == \"278dd843\"", true);
    t.put("Murmur3Hash128(\"Hello World\") == \"dbc2a0c1ab26631a27b4c09fcf1fe683\"", true);
    t.put("Murmur3Hash128(\"\") == \"00000000000000000000000000000000\"", true);
    t.put("Murmur3Hash128(\"password123\") == \"0d6e32cdfc91c174947f060f671760fc\"", true);
    t.put(
        "Murmur3Hash128(\"a much longer input of 35 bytes!!!!\") =="
            + " \"7580c7602518358f5e93c2d6e63866d3\"",
        true);
    t.put("FNV(\"Hello World\") == 4420528118743043111", true);
    t.put("FNV(attributes[\"s\"]) == -1792535898324117685", true);
    t.put("FNV(\"\") == \"\"", true);
    t.put("SHA1(attributes[\"i\"]) == \"\"", "SHA1 expects a string, got a int");
    check(OttlContext.SPAN, t);
  }

  @Test
  void readsASpanEventAndTheSpanAroundIt() throws Exception {
    Map<String, Object> t = new LinkedHashMap<>();
    t.put("name == \"exception\" and time_unix_nano == 1500", true);
    t.put("spanevent.attributes[\"exception.type\"] == \"java.io.IOException\"", true);
    t.put("span.name == \"GET /users/42\" and span.attributes[\"i\"] == 42", true);
    t.put("resource.attributes[\"service.name\"] == \"checkout\"", true);
    check(OttlContext.SPANEVENT, t);
  }
}
