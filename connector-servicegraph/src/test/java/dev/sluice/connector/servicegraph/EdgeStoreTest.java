package dev.sluice.connector.servicegraph;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The edge store against a {@link LinkedHashMap} doing the same adds, finds and removes. */
class EdgeStoreTest {
  private record Key(long high, long low, long span) {}

  @Test
  void findsAndOrdersAsAMapDoesThroughManyAddsAndRemoves() {
    Random random = new Random(7);
    EdgeStore store = new EdgeStore(300, 1, 1);
    Map<Key, Edge> model = new LinkedHashMap<>();
    List<Key> keys = new ArrayList<>();
    for (int op = 0; op < 200_000; op++) {
      // Few distinct trace IDs and small span IDs, so that keys collide in the table.
      Key key = new Key(random.nextInt(3), random.nextInt(5), random.nextInt(2000));
      Edge found = store.find(key.high(), key.low(), key.span());
      assertThat(found).isSameAs(model.get(key));
      int choice = random.nextInt(3);
      if (found == null && !store.full() && choice < 2) {
        Edge e = store.take(key.high(), key.low(), key.span(), op);
        store.add(e);
        model.put(key, e);
        keys.add(key);
      } else if (found != null && choice == 2) {
        store.remove(found);
        model.remove(key);
      } else if (store.oldest() != null && choice == 1) {
        Edge oldest = store.oldest();
        Key first = model.keySet().iterator().next();
        assertThat(oldest).isSameAs(model.get(first));
        store.remove(oldest);
        model.remove(first);
      }
      assertThat(store.size()).isEqualTo(model.size());
    }
    for (Key key : keys) {
      assertThat(store.find(key.high(), key.low(), key.span())).isSameAs(model.get(key));
    }
  }
}
