import { z } from 'zod';

/** Building blocks shared by the config section schemas. */

export const host = z.string().min(1);
export const port = z.number().int().min(1).max(65535);
export const positiveInt = z.number().int().min(1);
export const integerIn = (min: number, max: number) => z.number().int().min(min).max(max);

/** A section whose every key has a default: absent means "all defaults" (parsed from `{}`). */
export function section<S extends z.ZodType<unknown, object>>(schema: S) {
  return schema.prefault({} as z.input<S>);
}
