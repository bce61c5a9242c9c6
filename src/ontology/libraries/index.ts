/** The ontology libraries bundled with the service (GET /ontologies). A new version is added beside the old ones. */
import type { OntologyLibrary } from '../../../schemas/ontology-libraries.js';
import { COMMERCE_1_0_0 } from './commerce.js';

export const BUNDLED_LIBRARIES: readonly OntologyLibrary[] = [COMMERCE_1_0_0];
