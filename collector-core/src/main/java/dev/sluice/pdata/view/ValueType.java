package dev.sluice.pdata.view;

/** Which member of an {@code AnyValue}'s {@code value} oneof is set. */
public enum ValueType {
  /** No member set: an empty value. */
  EMPTY,
  STRING,
  BOOL,
  INT,
  DOUBLE,
  ARRAY,
  KVLIST,
  BYTES,
  /** {@code string_value_strindex}: an index into a string table (profiles); see the value. */
  STRING_INDEX
}
