package dev.sluice.component;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a record component holding a nested section that is switched on by being present in the
 * configuration file, even empty: {@code protocols: {grpc: }} turns gRPC on with its defaults,
 * while leaving {@code grpc} out turns it off (the component is then null). When present, keys left
 * out take their values from the section in the factory's default configuration.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({
  ElementType.RECORD_COMPONENT,
  ElementType.PARAMETER,
  ElementType.METHOD,
  ElementType.FIELD
})
public @interface OptionalSection {}
