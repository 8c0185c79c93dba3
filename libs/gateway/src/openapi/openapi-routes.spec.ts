import { type DynamicModule, RequestMethod, type Type } from '@nestjs/common';
import { MODULE_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { addLeadingSlash } from '@nestjs/common/utils/shared.utils';
import { ApplicationConfig, MetadataScanner } from '@nestjs/core';
import { PathsExplorer } from '@nestjs/core/router/paths-explorer';
import { RoutePathFactory } from '@nestjs/core/router/route-path-factory';
import { GatewayModule } from '../gateway.module';
import { ContractValidationPipe } from '../http/validated-input.decorators';
import type { GatewayPorts } from '../ports/gateway-ports';
import { buildOpenApiDocument } from './openapi-document';
import { routesOn } from './gateway-routes';
import type { NetworkName } from '../http/route-description';

// The OpenAPI document is written from the features' route descriptions (`*.routes.ts`), the
// routes from controllers' decorators: this proves they name the same routes, both ways. Routes are read from the metadata
// Nest registers them from, with Nest's own path rules, so nothing is started. (Fastify plugins add
// /docs, /dashboard and /metrics beside Nest; they are pages and a scrape target, not API routes.)

/** The gateway's module tree as a deployment on `network` declares it. */
function gatewayModuleOn(network: NetworkName): DynamicModule {
  // register() reads only the network while declaring the module; the other ports are used when
  // providers are built, which this test never does.
  return GatewayModule.register({ config: { network } } as unknown as GatewayPorts);
}

/** Every controller of `module` and of the modules it imports, as Nest's scanner collects them. */
function controllersOf(module: Type | DynamicModule, seen = new Set<unknown>()): Type[] {
  const moduleClass = typeof module === 'function' ? module : module.module;
  if (seen.has(module)) return [];
  seen.add(module);
  const declared = (key: string) => (Reflect.getMetadata(key, moduleClass) ?? []) as unknown[];
  const dynamic: Partial<DynamicModule> = typeof module === 'function' ? {} : module;
  const controllers = [...declared(MODULE_METADATA.CONTROLLERS), ...(dynamic.controllers ?? [])] as Type[];
  const imports = [...declared(MODULE_METADATA.IMPORTS), ...(dynamic.imports ?? [])];
  return [
    ...controllers,
    ...imports.flatMap((imported) => {
      if (
        typeof imported === 'function' ||
        (typeof imported === 'object' && imported && 'module' in imported)
      ) {
        return controllersOf(imported as Type | DynamicModule, seen);
      }
      throw new Error(`cannot read an imported module of this form: ${String(imported)}`);
    }),
  ];
}

/** `METHOD /path` of each route Nest registers for `controller` (no global prefix, no versioning). */
function routesOf(controller: Type): string[] {
  return handlersOf(controller).map(({ route }) => route);
}

/** The contract schema a handler's body or query is validated with (ValidBody, ValidQuery), if any. */
function validatedWith(controller: Type, methodName: string, part: RouteParamtypes): unknown {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, methodName) ?? {}) as Record<
    string,
    { pipes?: unknown[] }
  >;
  const pipes = Object.entries(args)
    .filter(([key]) => key.split(':')[0] === String(part))
    .flatMap(([, arg]) => arg.pipes ?? []);
  return pipes.find((pipe) => pipe instanceof ContractValidationPipe)?.schema;
}

/** Each route of `controller` (`METHOD /path`), with the schemas it validates its body and query with. */
function handlersOf(controller: Type): { route: string; body: unknown; query: unknown }[] {
  const paths = new RoutePathFactory(new ApplicationConfig());
  const controllerPaths = [Reflect.getMetadata(PATH_METADATA, controller) as string | string[]]
    .flat()
    .map((path) => addLeadingSlash(path));
  const handlers = new PathsExplorer(new MetadataScanner()).scanForPaths(
    Object.create(controller.prototype as object) as object,
    controller.prototype as object,
  );
  return handlers.flatMap(({ path: methodPaths, requestMethod, methodName }) =>
    controllerPaths.flatMap((ctrlPath) =>
      methodPaths.flatMap((methodPath) =>
        paths.create({ ctrlPath, methodPath }, requestMethod).map((path) => ({
          route: `${RequestMethod[requestMethod]} ${path.replace(/:(\w+)/g, '{$1}')}`,
          body: validatedWith(controller, methodName, RouteParamtypes.BODY),
          query: validatedWith(controller, methodName, RouteParamtypes.QUERY),
        })),
      ),
    ),
  );
}

/** `METHOD /path` of each operation of the OpenAPI document served on `network`. */
function documentedOn(network: NetworkName): string[] {
  const document = buildOpenApiDocument('0.0.0-test', network) as { paths: Record<string, object> };
  return Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
  );
}

describe.each<NetworkName>(['sandbox', 'whatsapp'])('the gateway on the %s network', (network) => {
  const registered = controllersOf(gatewayModuleOn(network)).flatMap(routesOf);
  const documented = documentedOn(network);

  it('registers every route its OpenAPI document describes, and no other', () => {
    expect({
      registeredButUndocumented: registered.filter((route) => !documented.includes(route)).sort(),
      documentedButNotRegistered: documented.filter((route) => !registered.includes(route)).sort(),
    }).toEqual({ registeredButUndocumented: [], documentedButNotRegistered: [] });
  });

  it('describes each route with the schemas its controller validates the body and query with', () => {
    const described = new Map(routesOn(network).map((route) => [`${route.method} ${route.path}`, route]));
    const validated = controllersOf(gatewayModuleOn(network)).flatMap(handlersOf);
    const differing = validated.filter(({ route, body, query }) => {
      const description = described.get(route);
      return (
        (body !== undefined && description?.body !== body) ||
        (query !== undefined && description?.query !== query)
      );
    });
    expect(differing.map(({ route }) => route)).toEqual([]);
    // Most routes validate their input this way (the sends validate in MessageSender): not a vacuous check.
    expect(validated.filter(({ body, query }) => body ?? query).length).toBeGreaterThan(30);
  });

  it('registers no route twice', () => {
    expect(registered.filter((route, index) => registered.indexOf(route) !== index)).toEqual([]);
  });

  it(network === 'sandbox' ? 'serves the sandbox control routes' : 'has no sandbox control route', () => {
    const sandboxRoutes = registered.filter((route) => route.includes(' /api/v1/sandbox/'));
    expect(sandboxRoutes.length > 0).toBe(network === 'sandbox');
  });
});
