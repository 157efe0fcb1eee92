// `npm run docs:config`: regenerates docs/config.md from the config schema (compiled to dist/ first).
import { writeConfigReference } from '../dist/config/write-config-reference.js';

writeConfigReference();
