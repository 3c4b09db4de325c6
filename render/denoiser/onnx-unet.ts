/**
 * OpenImageDenoise's U-Net as an ONNX model, built from its published weights.
 *
 * The layer names and order follow OIDN's own network (the weights' tensor names say which
 * layer is which): five encoder levels of 3x3 convolutions with ReLU and 2x2 max pooling,
 * then a decoder that upsamples (nearest) and concatenates the matching encoder output, and
 * a last convolution without activation. Input [1, C, H, W] with H and W multiples of 16.
 *
 * The ONNX file is written with a small protobuf writer: the model needs six message types
 * and a handful of fields, which does not justify a protobuf code generator.
 */
import { WeightsError, type WeightTensor } from './tza';

/** H and W of the input must be multiples of this (four 2x2 poolings). */
export const UNET_ALIGNMENT = 16;

// ---------------------------------------------------------------- protobuf writing

type Field = Buffer;

function varint(value: number | bigint): Buffer {
  let v = BigInt(value);
  if (v < 0n) v += 1n << 64n; // int64 negatives are ten-byte two's complement
  const bytes: number[] = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) byte |= 0x80;
    bytes.push(byte);
  } while (v > 0n);
  return Buffer.from(bytes);
}

const key = (field: number, wireType: number) => varint((field << 3) | wireType);
const int = (field: number, value: number): Field => Buffer.concat([key(field, 0), varint(value)]);
const bytesField = (field: number, value: Buffer): Field => Buffer.concat([key(field, 2), varint(value.length), value]);
const str = (field: number, value: string): Field => bytesField(field, Buffer.from(value, 'utf8'));
const msg = (field: number, ...parts: Field[]): Field => bytesField(field, Buffer.concat(parts));

// ONNX enum values
const FLOAT = 1;
const ATTR_STRING = 3;
const ATTR_INTS = 7;

function tensorProto(field: number, name: string, dims: number[], data: Float32Array): Field {
  const raw = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return msg(field, ...dims.map((d) => int(1, d)), int(2, FLOAT), str(8, name), bytesField(9, Buffer.from(raw)));
}

function intsAttribute(name: string, values: number[]): Field {
  return msg(5, str(1, name), ...values.map((v) => int(8, v)), int(20, ATTR_INTS));
}

function stringAttribute(name: string, value: string): Field {
  return msg(5, str(1, name), bytesField(4, Buffer.from(value)), int(20, ATTR_STRING));
}

function node(opType: string, inputs: string[], outputs: string[], ...attributes: Field[]): Field {
  return msg(1, ...inputs.map((i) => str(1, i)), ...outputs.map((o) => str(2, o)), str(3, outputs[0]), str(4, opType), ...attributes);
}

/** A float tensor value [N, C, H, W] with symbolic N, H, W. */
function valueInfo(field: number, name: string, channels: number): Field {
  const dim = (d: number | string) => msg(1, typeof d === 'number' ? int(1, d) : str(2, d));
  const shape = msg(2, dim('N'), dim(channels), dim('H'), dim('W'));
  return msg(field, str(1, name), msg(2, msg(1, int(1, FLOAT), shape)));
}

// ---------------------------------------------------------------- the network

/** Builds the model; the input has as many channels as enc_conv0 expects (9 for colour, albedo, normal). */
export function buildUnetModel(weights: Map<string, WeightTensor>): { model: Uint8Array; inputChannels: number } {
  const nodes: Field[] = [];
  const initializers: Field[] = [];
  const inputChannels = weightOf(weights, 'enc_conv0').shape[1];

  const conv = (name: string, input: string, relu = true): string => {
    const w = weightOf(weights, name);
    const b = weights.get(`${name}.bias`);
    if (!b || b.shape[0] !== w.shape[0]) throw new WeightsError(`denoiser weights: ${name}.bias is missing or mis-sized`);
    initializers.push(tensorProto(5, `${name}.weight`, w.shape, w.data), tensorProto(5, `${name}.bias`, b.shape, b.data));
    nodes.push(node('Conv', [input, `${name}.weight`, `${name}.bias`], [name], intsAttribute('kernel_shape', [3, 3]), intsAttribute('pads', [1, 1, 1, 1])));
    if (!relu) return name;
    nodes.push(node('Relu', [name], [`${name}.relu`]));
    return `${name}.relu`;
  };
  const pool = (input: string, name: string): string => {
    nodes.push(node('MaxPool', [input], [name], intsAttribute('kernel_shape', [2, 2]), intsAttribute('strides', [2, 2])));
    return name;
  };
  const upsample = (input: string, name: string): string => {
    nodes.push(node('Resize', [input, '', 'upsample.scales'], [name], stringAttribute('mode', 'nearest'), stringAttribute('coordinate_transformation_mode', 'asymmetric'), stringAttribute('nearest_mode', 'floor')));
    return name;
  };
  const concat = (a: string, b: string, name: string): string => {
    nodes.push(node('Concat', [a, b], [name], msg(5, str(1, 'axis'), int(3, 1), int(20, 2))));
    return name;
  };
  initializers.push(tensorProto(5, 'upsample.scales', [4], new Float32Array([1, 1, 2, 2])));

  let x = conv('enc_conv0', 'input');
  const pool1 = pool(conv('enc_conv1', x), 'pool1');
  const pool2 = pool(conv('enc_conv2', pool1), 'pool2');
  const pool3 = pool(conv('enc_conv3', pool2), 'pool3');
  x = pool(conv('enc_conv4', pool3), 'pool4');
  x = conv('enc_conv5b', conv('enc_conv5a', x));
  x = conv('dec_conv4b', conv('dec_conv4a', concat(upsample(x, 'up4'), pool3, 'cat4')));
  x = conv('dec_conv3b', conv('dec_conv3a', concat(upsample(x, 'up3'), pool2, 'cat3')));
  x = conv('dec_conv2b', conv('dec_conv2a', concat(upsample(x, 'up2'), pool1, 'cat2')));
  x = conv('dec_conv1b', conv('dec_conv1a', concat(upsample(x, 'up1'), 'input', 'cat1')));
  const output = conv('dec_conv0', x, false);

  const graph = msg(7, ...nodes, str(2, 'oidn_unet'), ...initializers, valueInfo(11, 'input', inputChannels), valueInfo(12, output, 3));
  const model = Buffer.concat([int(1, 8), str(2, 'cloud-render'), graph, msg(8, str(1, ''), int(2, 13))]);
  return { model: new Uint8Array(model), inputChannels };
}

function weightOf(weights: Map<string, WeightTensor>, name: string): WeightTensor {
  const w = weights.get(`${name}.weight`);
  if (!w || w.shape.length !== 4 || w.layout !== 'oihw') throw new WeightsError(`denoiser weights: ${name}.weight is missing or not a 3x3 convolution`);
  return w;
}
