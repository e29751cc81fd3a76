#!/usr/bin/env node
import { runAsProgram } from '@opstream/stand-in-kit/cli';
import { serviceBusEmulatorCommand } from './cli';

void runAsProgram(serviceBusEmulatorCommand());
