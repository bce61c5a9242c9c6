import { ONTOLOGY_ID_PATTERN, ONTOLOGY_VERSION_PATTERN, type OntologyLibrary } from '../../../schemas/ontology-libraries.js';

/** Orders semantic versions (`1.10.0` after `1.9.0`); negative when `a` is older. */
export function compareVersions(a: string, b: string): number {
  const [x, y] = [a.split('.').map(Number), b.split('.').map(Number)];
  for (let i = 0; i < 3; i += 1) if (x[i] !== y[i]) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
}

/** The layer id an install's concepts carry in `layerIds`. */
export const layerIdOf = (ontologyId: string, version: string) => `ontology:${ontologyId}@${version}`;
/** Whether a layer id names an install of `ontologyId` (any version). */
export const isLayerOf = (ontologyId: string) => (layerId: string) => layerId.startsWith(`ontology:${ontologyId}@`);

/**
 * The libraries a process offers, every version of each. Refuses at start what would break installs later: a bad
 * id or version, a version given twice, two concepts of one version sharing a canonicalId or a name.
 */
export class LibraryRegistry {
  /** id -> versions, newest first. */
  private readonly byId = new Map<string, OntologyLibrary[]>();

  constructor(libraries: readonly OntologyLibrary[]) {
    const idPattern = new RegExp(ONTOLOGY_ID_PATTERN);
    const versionPattern = new RegExp(ONTOLOGY_VERSION_PATTERN);
    for (const library of libraries) {
      const label = `ontology library ${library.id}@${library.version}`;
      if (!idPattern.test(library.id) || library.id.length > 40) throw new Error(`${label}: the id must be lower-case words joined by dots, at most 40 characters`);
      if (!versionPattern.test(library.version)) throw new Error(`${label}: the version must be major.minor.patch`);
      const versions = this.byId.get(library.id) ?? [];
      if (versions.some((v) => v.version === library.version)) throw new Error(`${label} is given twice`);
      for (const key of ['canonicalId', 'name'] as const) {
        const seen = new Set<string>();
        for (const concept of library.concepts) {
          const value = concept[key].toLowerCase();
          if (seen.has(value)) throw new Error(`${label}: two concepts share the ${key} ${concept[key]}`);
          seen.add(value);
        }
      }
      this.byId.set(library.id, [...versions, library].sort((a, b) => compareVersions(b.version, a.version)));
    }
  }

  /** The newest version of every library, by id. */
  latest(): OntologyLibrary[] {
    return [...this.byId.keys()].sort().map((id) => this.byId.get(id)![0]!);
  }

  /** The versions of a library, newest first (none when unknown). */
  versions(id: string): string[] {
    return (this.byId.get(id) ?? []).map((library) => library.version);
  }

  /** One version of a library (the newest when `version` is not given). */
  find(id: string, version?: string): OntologyLibrary | undefined {
    const versions = this.byId.get(id) ?? [];
    return version === undefined ? versions[0] : versions.find((library) => library.version === version);
  }
}
