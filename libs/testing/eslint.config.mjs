import root, { testProject } from '../../eslint.config.mjs';

export default [...root, ...testProject];
