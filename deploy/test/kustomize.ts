import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseAllDocuments, parse } from 'yaml';

/** A rendered Kubernetes object (only the fields the renderer touches are typed). */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

interface JsonPatchOp {
  op: 'add' | 'replace' | 'remove';
  path: string;
  value?: unknown;
}

/** The kustomization fields this renderer implements; any other field fails the render. */
const SUPPORTED = new Set(['apiVersion', 'kind', 'resources', 'namespace', 'labels', 'images', 'patches']);
/** Kinds that have no namespace. */
const CLUSTER_SCOPED = new Set(['Namespace', 'ClusterRole', 'ClusterRoleBinding']);

/**
 * Renders a kustomization directory like `kustomize build` for the subset Jumbe's manifests use:
 * resources (files and directories), namespace, labels (metadata only), images and JSON 6902
 * patches with a kind/name target. Unsupported fields throw rather than render wrong output.
 */
export function renderKustomization(dir: string): KubeObject[] {
  const file = join(dir, 'kustomization.yaml');
  const kustomization = parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  for (const key of Object.keys(kustomization)) {
    if (!SUPPORTED.has(key)) throw new Error(`${file}: unsupported kustomization field ${key}`);
  }
  if (kustomization.kind !== 'Kustomization') throw new Error(`${file}: kind is not Kustomization`);

  const objects: KubeObject[] = [];
  for (const resource of (kustomization.resources as string[] | undefined) ?? []) {
    const path = resolve(dir, resource);
    if (!existsSync(path)) throw new Error(`${file}: resource ${resource} does not exist`);
    if (statSync(path).isDirectory()) objects.push(...renderKustomization(path));
    else objects.push(...readObjects(path));
  }

  for (const label of (kustomization.labels as { pairs: Record<string, string> }[]) ?? []) {
    for (const object of objects) {
      object.metadata.labels = { ...object.metadata.labels, ...label.pairs };
    }
  }
  const namespace = kustomization.namespace as string | undefined;
  if (namespace) {
    for (const object of objects) {
      if (!CLUSTER_SCOPED.has(object.kind)) object.metadata.namespace = namespace;
    }
  }
  const images = (kustomization.images as { name: string; newName?: string; newTag?: string }[]) ?? [];
  for (const image of images) {
    let used = false;
    for (const container of objects.flatMap(containersOf)) {
      const [name, tag] = splitImage(container.image);
      if (name !== image.name) continue;
      used = true;
      const newTag = image.newTag ?? tag;
      container.image = `${image.newName ?? name}${newTag ? `:${newTag}` : ''}`;
    }
    if (!used) throw new Error(`${file}: image ${image.name} matches no container`);
  }
  type Patch = { target: { kind: string; name: string }; patch: string };
  for (const { target, patch } of (kustomization.patches as Patch[]) ?? []) {
    const matches = objects.filter((o) => o.kind === target.kind && o.metadata.name === target.name);
    if (matches.length === 0)
      throw new Error(`${file}: patch target ${target.kind}/${target.name} matches nothing`);
    for (const object of matches) applyJsonPatch(object, parse(patch) as JsonPatchOp[]);
  }
  return objects;
}

function readObjects(path: string): KubeObject[] {
  const objects: KubeObject[] = [];
  for (const document of parseAllDocuments(readFileSync(path, 'utf8'))) {
    if (document.errors.length > 0) throw new Error(`${path}: ${document.errors[0].message}`);
    const value = document.toJS() as KubeObject | null;
    if (value !== null) objects.push(value);
  }
  return objects;
}

/** Every container (and init container) of a workload or a pod template. */
export function containersOf(object: KubeObject): { image: string; env?: { name: string }[] }[] {
  const spec = object.spec as Record<string, any> | undefined; // eslint-disable-line @typescript-eslint/no-explicit-any
  const pod =
    spec?.jobTemplate?.spec?.template?.spec ??
    spec?.template?.spec ??
    (object.kind === 'Pod' ? spec : undefined);
  return pod ? [...(pod.containers ?? []), ...(pod.initContainers ?? [])] : [];
}

function splitImage(image: string): [string, string | undefined] {
  const slash = image.lastIndexOf('/');
  const colon = image.lastIndexOf(':');
  return colon > slash ? [image.slice(0, colon), image.slice(colon + 1)] : [image, undefined];
}

function applyJsonPatch(object: KubeObject, ops: JsonPatchOp[]): void {
  for (const { op, path, value } of ops) {
    const keys = path
      .split('/')
      .slice(1)
      .map((key) => key.replace(/~1/g, '/').replace(/~0/g, '~'));
    const last = keys.pop();
    if (last === undefined) throw new Error(`patch path ${path} is empty`);
    let parent: any = object; // eslint-disable-line @typescript-eslint/no-explicit-any
    for (const key of keys) {
      if (parent?.[key] === undefined) throw new Error(`patch path ${path} does not exist`);
      parent = parent[key];
    }
    if (op !== 'add' && !(last in parent)) throw new Error(`patch path ${path} does not exist`);
    if (op === 'remove') {
      if (Array.isArray(parent)) parent.splice(Number(last), 1);
      else delete parent[last];
    } else if (op === 'add' && Array.isArray(parent)) {
      parent.splice(last === '-' ? parent.length : Number(last), 0, value);
    } else if (op === 'add' || op === 'replace') {
      parent[last] = value;
    } else {
      throw new Error(`unsupported patch op ${String(op)}`);
    }
  }
}

/** The directory of this repository's deploy/ folder. */
export const deployDir = resolve(dirname(__dirname));
