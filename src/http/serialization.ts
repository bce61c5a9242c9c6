import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

/**
 * Fastify's response serializers (fast-json-stringify), compiled on a route's first response instead of at start:
 * the service declares a few hundred route/status schemas and compiling them all took most of start-up's CPU, while
 * a process answers only some of them. Each serializer is compiled once and kept; what it writes is unchanged.
 */
export function lazySerializers(): ReturnType<typeof SerializerSelector> {
  const eager = SerializerSelector();
  return (externalSchemas, options) => {
    const compile = eager(externalSchemas, options);
    return (route) => {
      let serialize: ((document: unknown) => string) | undefined;
      return (document) => (serialize ??= compile(route))(document);
    };
  };
}
