import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

/**
 * Fastify's response serializers (fast-json-stringify), compiled on a route's first response instead of at start:
 * the service declares a few hundred route/status schemas and compiling them all took most of start-up's CPU, while
 * a process answers only some of them. Each serializer is compiled once and kept; what it writes is unchanged. The
 * OpenAPI test builds the app eagerly, so every schema is still compiled in the suite.
 */
export function lazySerializers(options: { eager?: boolean } = {}): ReturnType<typeof SerializerSelector> {
  const factory = SerializerSelector();
  return (externalSchemas, serializerOptions) => {
    const compile = factory(externalSchemas, serializerOptions);
    return (route) => {
      // Eager (tests): every serializer compiled at start, so a schema that cannot be compiled fails there.
      if (options.eager === true) return compile(route);
      let serialize: ((document: unknown) => string) | undefined;
      return (document) => (serialize ??= compile(route))(document);
    };
  };
}
