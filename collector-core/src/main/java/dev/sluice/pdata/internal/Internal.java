package dev.sluice.pdata.internal;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A member of the data model's public face that is public only because the data model's own
 * packages (the internal package among them) need it: not for components, which {@code
 * ComponentBoundariesTest} holds to. Public types of this package are internal as a whole and carry
 * no mark.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target({ElementType.METHOD, ElementType.FIELD, ElementType.CONSTRUCTOR, ElementType.TYPE})
public @interface Internal {}
