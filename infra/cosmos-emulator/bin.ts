#!/usr/bin/env node
import { runAsProgram } from '@opstream/stand-in-kit/cli';
import { cosmosEmulatorCommand } from './cli';

void runAsProgram(cosmosEmulatorCommand());
