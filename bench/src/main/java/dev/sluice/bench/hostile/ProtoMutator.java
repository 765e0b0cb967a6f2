package dev.sluice.bench.hostile;

import dev.sluice.pdata.internal.OtlpFields;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Mutations of a valid protobuf request: byte-level (bit flips, insertions, deletions, truncation)
 * and structural (varint lengths bumped or shrunk, tags rewritten to huge field numbers or wrong
 * wire types, submessages duplicated or dropped, deep nesting of AnyValue arrays and of groups).
 * Deterministic from the random source it is handed.
 */
final class ProtoMutator {
  /** The largest field number protobuf allows (2^29 - 1). */
  static final long MAX_FIELD_NUMBER = (1L << 29) - 1;

  /** Deep nesting: from past any sane limit to far past a thread's stack. */
  private static final int MIN_NESTING = 200;

  private static final int MAX_NESTING = 10_000;

  private static final int MAX_SPLICE_BYTES = 16;

  private static final int MAX_VARINT_BYTES = 5;

  private ProtoMutator() {}

  /** A mutated copy of {@code valid}; {@code what} receives the names of the mutations applied. */
  static byte[] mutate(byte[] valid, SplittableRandom random, StringBuilder what) {
    byte[] bytes = valid;
    int rounds = 1 + random.nextInt(3);
    for (int i = 0; i < rounds; i++) {
      int choice = random.nextInt(12);
      what.append(what.length() == 0 ? "" : "+");
      switch (choice) {
        case 0 -> {
          what.append("bitflip");
          bytes = bitFlip(bytes, random);
        }
        case 1 -> {
          what.append("insert");
          bytes = insert(bytes, random);
        }
        case 2 -> {
          what.append("delete");
          bytes = delete(bytes, random);
        }
        case 3 -> {
          what.append("truncate");
          bytes = Arrays.copyOf(bytes, bytes.length == 0 ? 0 : random.nextInt(bytes.length));
        }
        case 4, 5, 11 -> {
          what.append("length");
          bytes = corruptLength(bytes, random);
        }
        case 6 -> {
          what.append("tag");
          bytes = rewriteTag(bytes, random);
        }
        case 7 -> {
          what.append("duplicate");
          bytes = duplicate(bytes, random);
        }
        case 8 -> {
          what.append("drop");
          bytes = drop(bytes, random);
        }
        case 9 -> {
          what.append("nest-anyvalue");
          bytes = nestAnyValue(bytes, random);
        }
        case 10 -> {
          what.append("nest-group");
          bytes = nestGroups(bytes, random);
        }
        default -> throw new AssertionError(choice);
      }
    }
    return bytes;
  }

  static byte[] bitFlip(byte[] bytes, SplittableRandom random) {
    if (bytes.length == 0) {
      return bytes;
    }
    byte[] out = bytes.clone();
    int flips = 1 + random.nextInt(8);
    for (int i = 0; i < flips; i++) {
      out[random.nextInt(out.length)] ^= (byte) (1 << random.nextInt(8));
    }
    return out;
  }

  static byte[] insert(byte[] bytes, SplittableRandom random) {
    int at = random.nextInt(bytes.length + 1);
    byte[] extra = new byte[1 + random.nextInt(MAX_SPLICE_BYTES)];
    for (int i = 0; i < extra.length; i++) {
      extra[i] = (byte) random.nextInt(256);
    }
    return splice(bytes, at, 0, extra);
  }

  static byte[] delete(byte[] bytes, SplittableRandom random) {
    if (bytes.length == 0) {
      return bytes;
    }
    int at = random.nextInt(bytes.length);
    int length = Math.min(bytes.length - at, 1 + random.nextInt(MAX_SPLICE_BYTES));
    return splice(bytes, at, length, new byte[0]);
  }

  /** A length-delimited field's varint length replaced: bumped, shrunk, or huge. */
  static byte[] corruptLength(byte[] bytes, SplittableRandom random) {
    List<int[]> lengths = lengthVarints(bytes);
    if (lengths.isEmpty()) {
      return bitFlip(bytes, random);
    }
    int[] chosen = lengths.get(random.nextInt(lengths.size()));
    long length = chosen[2];
    long corrupted =
        switch (random.nextInt(6)) {
          case 0 -> length + 1;
          case 1 -> Math.max(0, length - 1);
          case 2 -> length + 1 + random.nextInt(1000);
          case 3 -> length == 0 ? 1 : random.nextLong(length);
          case 4 -> Integer.MAX_VALUE + (long) random.nextInt(16);
          default -> (1L << 35) + random.nextLong(1L << 40);
        };
    return splice(bytes, chosen[0], chosen[1], WireTree.varint(corrupted));
  }

  /** Offsets of length varints found by a lenient walk: {offset, size, value}. */
  private static List<int[]> lengthVarints(byte[] bytes) {
    List<int[]> found = new ArrayList<>();
    walk(bytes, 0, bytes.length, 0, found);
    return found;
  }

  private static void walk(byte[] bytes, int from, int to, int depth, List<int[]> found) {
    int[] at = {from};
    while (at[0] < to) {
      long tag = WireTree.readVarint(bytes, at, to);
      if (tag <= 0) {
        return;
      }
      switch ((int) (tag & 7)) {
        case WireTree.VARINT -> {
          if (WireTree.readVarint(bytes, at, to) < 0) {
            return;
          }
        }
        case WireTree.FIXED64 -> at[0] += 8;
        case WireTree.FIXED32 -> at[0] += 4;
        case WireTree.LEN -> {
          int offset = at[0];
          long length = WireTree.readVarint(bytes, at, to);
          if (length < 0 || length > to - at[0]) {
            return;
          }
          found.add(new int[] {offset, at[0] - offset, (int) length});
          if (depth < 12) {
            walk(bytes, at[0], (int) (at[0] + length), depth + 1, found);
          }
          at[0] += (int) length;
        }
        default -> {
          return;
        }
      }
    }
  }

  /** One field's tag replaced by a huge field number, field 0, or a wrong or invalid wire type. */
  static byte[] rewriteTag(byte[] bytes, SplittableRandom random) {
    List<WireTree.Field> root = WireTree.parse(bytes, 0, bytes.length, 0);
    if (root == null || root.isEmpty()) {
      return bitFlip(bytes, random);
    }
    List<WireTree.Field> fields = new ArrayList<>();
    WireTree.collect(root, fields, new ArrayList<>());
    WireTree.Field field = fields.get(random.nextInt(fields.size()));
    long number = field.tag >>> 3;
    int wireType = field.wireType();
    switch (random.nextInt(5)) {
      case 0 -> number = MAX_FIELD_NUMBER - random.nextInt(4);
      case 1 -> number = 1000 + random.nextInt(100_000);
      case 2 -> wireType = (wireType + 1 + random.nextInt(5)) % 6;
      case 3 -> wireType = 6 + random.nextInt(2);
      default -> number = 0;
    }
    if (random.nextBoolean()) {
      // Past 2^29: a tag varint protobuf itself refuses.
      number |= 1L << (29 + random.nextInt(30));
    }
    field.tag = (number << 3) | wireType;
    return WireTree.write(root);
  }

  /** A submessage written twice (or many times), with every enclosing length kept right. */
  static byte[] duplicate(byte[] bytes, SplittableRandom random) {
    List<WireTree.Field> root = WireTree.parse(bytes, 0, bytes.length, 0);
    if (root == null || root.isEmpty()) {
      return insert(bytes, random);
    }
    List<WireTree.Field> fields = new ArrayList<>();
    List<List<WireTree.Field>> owners = new ArrayList<>();
    WireTree.collect(root, fields, owners);
    int chosen = random.nextInt(fields.size());
    List<WireTree.Field> owner = owners.get(chosen);
    int index = owner.indexOf(fields.get(chosen));
    int copies = random.nextInt(4) == 0 ? 2 + random.nextInt(64) : 1;
    for (int i = 0; i < copies; i++) {
      owner.add(index + 1, fields.get(chosen).copy());
    }
    return WireTree.write(root);
  }

  /** A field dropped, with every enclosing length kept right. */
  static byte[] drop(byte[] bytes, SplittableRandom random) {
    List<WireTree.Field> root = WireTree.parse(bytes, 0, bytes.length, 0);
    if (root == null || root.isEmpty()) {
      return delete(bytes, random);
    }
    List<WireTree.Field> fields = new ArrayList<>();
    List<List<WireTree.Field>> owners = new ArrayList<>();
    WireTree.collect(root, fields, owners);
    int chosen = random.nextInt(fields.size());
    owners.get(chosen).remove(fields.get(chosen));
    return WireTree.write(root);
  }

  /**
   * A resource block appended whose resource has one attribute nested {@code depth} arrays deep:
   * AnyValue{array_value: ArrayValue{values: AnyValue{...}}}. The same for every signal.
   */
  static byte[] nestAnyValue(byte[] bytes, SplittableRandom random) {
    int depth = MIN_NESTING + random.nextInt(MAX_NESTING);
    // Written backwards, innermost first, so that each level costs its own few bytes only.
    byte[] buffer = new byte[depth * 2 * (1 + MAX_VARINT_BYTES) + 16];
    int start = buffer.length;
    buffer[--start] = 'x';
    start = prependHeader(buffer, start, OtlpFields.AnyValue.STRING_VALUE, 1);
    for (int i = 0; i < depth; i++) {
      start = prependHeader(buffer, start, OtlpFields.ArrayValue.VALUES, buffer.length - start);
      start = prependHeader(buffer, start, OtlpFields.AnyValue.ARRAY_VALUE, buffer.length - start);
    }
    byte[] value = Arrays.copyOfRange(buffer, start, buffer.length);
    byte[] keyValue =
        concat(
            message(OtlpFields.KeyValue.KEY, new byte[] {'k'}),
            message(OtlpFields.KeyValue.VALUE, value));
    byte[] block =
        message(
            OtlpFields.ResourceBlock.RESOURCE, message(OtlpFields.Resource.ATTRIBUTES, keyValue));
    return concat(bytes, message(OtlpFields.Request.RESOURCE_BLOCKS, block));
  }

  /** Writes a field's tag and length in front of {@code start}; returns the new start. */
  private static int prependHeader(byte[] buffer, int start, int field, int length) {
    byte[] header =
        concat(WireTree.varint(((long) field << 3) | WireTree.LEN), WireTree.varint(length));
    System.arraycopy(header, 0, buffer, start - header.length, header.length);
    return start - header.length;
  }

  /** Start-group tags nested {@code depth} deep under an unknown field number, then closed. */
  static byte[] nestGroups(byte[] bytes, SplittableRandom random) {
    int depth = MIN_NESTING + random.nextInt(MAX_NESTING * 5);
    long number = 1000 + random.nextInt(1000);
    byte[] start = WireTree.varint((number << 3) | WireTree.START_GROUP);
    byte[] end = WireTree.varint((number << 3) | WireTree.END_GROUP);
    boolean closed = random.nextBoolean();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(bytes, 0, bytes.length);
    for (int i = 0; i < depth; i++) {
      out.write(start, 0, start.length);
    }
    if (closed) {
      for (int i = 0; i < depth; i++) {
        out.write(end, 0, end.length);
      }
    }
    return out.toByteArray();
  }

  static byte[] message(int field, byte[] payload) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(payload.length + 6);
    WireTree.writeVarint(out, ((long) field << 3) | WireTree.LEN);
    WireTree.writeVarint(out, payload.length);
    out.write(payload, 0, payload.length);
    return out.toByteArray();
  }

  static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  static byte[] splice(byte[] bytes, int at, int removed, byte[] inserted) {
    byte[] out = new byte[bytes.length - removed + inserted.length];
    System.arraycopy(bytes, 0, out, 0, at);
    System.arraycopy(inserted, 0, out, at, inserted.length);
    System.arraycopy(bytes, at + removed, out, at + inserted.length, bytes.length - at - removed);
    return out;
  }
}
